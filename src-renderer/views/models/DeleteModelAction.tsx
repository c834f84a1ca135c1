import { useState } from 'react';
import type { ModelRemoval } from '../../../src-main/service/contract/hub-schemas';
import type { ModelEntry } from '../../../src-main/service/contract/schemas';
import { cancelOnEscape } from '../../components/cancel-on-escape';
import { formatBytes } from '../../components/format';
import { useSlice, useStores } from '../../store/react';

/**
 * "Delete from disk" for a model in the models folder: asks the service what it would remove
 * (the files or folder by path, and their size) and confirms that; a loaded or busy model is
 * refused with the service's sentence (unload it first), a bundled or another program's model
 * offers nothing to delete.
 */
export function DeleteModelAction(props: { model: ModelEntry }) {
  const { bridge } = useStores();
  const refresh = useSlice('slots', (s) => s.refresh);
  const [removal, setRemoval] = useState<ModelRemoval | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (props.model.source !== 'models-folder') return null;
  const ask = async () => {
    const result = await bridge.call('models.removal', { modelId: props.model.modelId });
    setProblem(result.ok ? result.value.refusal : result.error.message);
    setRemoval(result.ok && result.value.refusal === null ? result.value : null);
  };
  const confirm = async () => {
    const result = await bridge.call('models.delete', { modelId: props.model.modelId });
    setRemoval(null);
    setProblem(result.ok ? null : result.error.message);
    await refresh();
  };
  if (!removal)
    return (
      <span className="model-delete">
        <button type="button" className="quiet small" data-testid="model-delete" onClick={() => void ask()}>
          Delete from disk…
        </button>
        {problem && (
          <span className="notice error" role="alert" data-testid="model-delete-problem">
            {problem}
          </span>
        )}
      </span>
    );
  return (
    <span
      className="confirm"
      role="alertdialog"
      aria-label="Confirm delete"
      data-testid="model-delete-confirm"
      onKeyDown={cancelOnEscape(() => setRemoval(null))}
    >
      Delete {removal.paths.map((p) => fileNameOf(p)).join(', ')} ({formatBytes(removal.numBytes)}) from disk?
      It cannot be undone.{' '}
      <button
        type="button"
        className="danger small"
        data-testid="model-delete-confirmed"
        title={removal.paths.join('\n')}
        onClick={() => void confirm()}
      >
        Delete
      </button>{' '}
      <button type="button" className="quiet small" onClick={() => setRemoval(null)} autoFocus>
        Keep
      </button>
    </span>
  );
}

/** The last part of a path, on either kind of separator (the renderer has no `path`). */
function fileNameOf(full: string): string {
  return full.split(/[\\/]/).filter(Boolean).pop() ?? full;
}
