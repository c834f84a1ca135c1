import { useState } from 'react';
import type { ModelRemoval } from '../../../src-main/service/contract/hub-schemas';
import type { ModelEntry } from '../../../src-main/service/contract/schemas';
import { Confirm } from '../../components/Confirm';
import { formatBytes } from '../../components/format';
import { useStores } from '../../store/react';

/**
 * "Delete from disk" for a model in the models folder: asks the service what it would remove
 * (the files or folder by path, and their size) and confirms that; a loaded or busy model is
 * refused with the service's sentence (unload it first), a bundled or another program's model
 * offers nothing to delete.
 */
export function DeleteModelAction(props: { model: ModelEntry }) {
  const { modelSources } = useStores();
  const [removal, setRemoval] = useState<ModelRemoval | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (props.model.source !== 'models-folder') return null;
  const ask = async () => {
    const answer = await modelSources.getState().askRemoval(props.model.modelId);
    setProblem(answer.problem);
    setRemoval(answer.removal);
  };
  const confirm = async () => {
    setRemoval(null);
    setProblem(await modelSources.getState().deleteModel(props.model.modelId));
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
    <Confirm
      placement="inline"
      label="Confirm delete"
      testId="model-delete-confirm"
      action="Delete"
      actionTestId="model-delete-confirmed"
      actionTitle={removal.paths.join('\n')}
      onConfirm={() => void confirm()}
      onCancel={() => setRemoval(null)}
    >
      Delete {removal.paths.map((p) => fileNameOf(p)).join(', ')} ({formatBytes(removal.numBytes)}) from disk?
      It cannot be undone.
    </Confirm>
  );
}

/** The last part of a path, on either kind of separator (the renderer has no `path`). */
function fileNameOf(full: string): string {
  return full.split(/[\\/]/).filter(Boolean).pop() ?? full;
}
