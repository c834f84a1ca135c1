import { whyUnusable } from '../../../src-main/service/contract';
import type { ModelEntry } from '../../../src-main/service/contract';

/** Models by name, each that cannot run with why: not supported yet, or cannot load, and the reason. */
export function ModelList(props: { models: readonly ModelEntry[]; testId?: string }) {
  return (
    <ul className="user-models" data-testid={props.testId}>
      {props.models.map((m) => (
        <li key={m.modelId} className={m.status === 'ok' ? undefined : m.status}>
          {m.displayName}
          {m.status === 'ok' ? null : <span className="notice error">{whyUnusable(m)}</span>}
        </li>
      ))}
    </ul>
  );
}
