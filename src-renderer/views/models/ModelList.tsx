import { whyUnusable } from '../../../src-main/runtime/model/listing-status';
import type { ModelEntry } from '../../../src-main/service/contract/schemas';
import { formatBytes } from '../../components/format';
import { DeleteModelAction } from './DeleteModelAction';

/**
 * Models by name with their weights' size and storage; each that cannot run with why (not
 * supported yet, or cannot load, and the reason). `canDelete`: the models folder's list, where
 * each model offers "Delete from disk".
 */
export function ModelList(props: { models: readonly ModelEntry[]; testId?: string; canDelete?: boolean }) {
  return (
    <ul className="user-models" data-testid={props.testId}>
      {props.models.map((m) => (
        <li key={m.modelId} className={m.status === 'ok' ? undefined : m.status} data-model-id={m.modelId}>
          {m.displayName}
          {m.status === 'ok' && (
            <span className="muted">
              {' '}
              · {formatBytes(m.weightBytes)}
              {m.weightDtype ? ` · ${m.weightDtype}` : ''}
            </span>
          )}
          {m.origin && (
            <span className="muted" data-testid="model-origin">
              {' '}
              · from {m.origin}
            </span>
          )}
          {props.canDelete && m.isDefaultVariant && (
            <>
              {' '}
              <DeleteModelAction model={m} />
            </>
          )}
          {m.status === 'ok' ? null : <span className="notice error">{whyUnusable(m)}</span>}
        </li>
      ))}
    </ul>
  );
}
