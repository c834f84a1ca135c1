import { useCallback, useState } from 'react';
import type { ReactNode } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { Panel } from '../../components/Panel';
import { usePolling } from '../../components/use-ticker';
import { useSlice, useStores } from '../../store/react';
import { DiscoveredModels } from './DiscoveredModels';
import { HubDownloads } from './HubDownloads';
import { ModelList } from './ModelList';

/** How often the open panel looks at the models folder again (each look is one models.list). */
const FOLDER_LOOK_MS = 3000;

/**
 * "Add a model": where the models folder is (open it on the desktop, copy its path in a
 * browser), getting a GGUF from Hugging Face into it, what loads from it, the models in it
 * (each can be deleted from disk), the models already found on this machine. While it is open it
 * looks at the folder every few seconds, so a model copied in shows up without a button press.
 */
export function AddModelPanel(props: { onClose?: () => void }) {
  const status = useSlice('ui', (s) => s.status);
  const models = useSlice('slots', (s) => s.models);
  const refresh = useSlice('slots', (s) => s.refresh);
  const lookAgain = useCallback(() => void refresh(), [refresh]);
  usePolling(lookAgain, FOLDER_LOOK_MS);
  const userModels = models.filter((m) => m.source === 'models-folder');
  const close = props.onClose && (
    // Opened over the chat, the panel takes the focus (on its close button: Escape or Enter closes).
    <button type="button" className="icon" aria-label="Close Add a model" onClick={props.onClose} autoFocus>
      ×
    </button>
  );
  return (
    <Panel title="Add a model" className="wide add-model" testId="add-model" actions={close}>
      <p>Put a model&apos;s folder, as you downloaded it, into this folder:</p>
      <ModelsFolderLine>
        <button type="button" data-testid="models-rescan" onClick={() => void refresh()}>
          Look again
        </button>
      </ModelsFolderLine>
      <HubDownloads />
      <h3>What loads</h3>
      <ul className="formats">
        {(status?.modelFormats ?? []).map((f) => (
          <li key={f.name}>
            <b>{f.name}</b>: {f.detail}
          </li>
        ))}
      </ul>
      <h3>In the models folder</h3>
      {userModels.length === 0 ? (
        <p className="muted" data-testid="user-models-empty">
          Nothing yet. A folder copied in shows up here within a few seconds, and in the chat&apos;s model
          picker.
        </p>
      ) : (
        <ModelList models={userModels} testId="user-models" canDelete />
      )}
      <DiscoveredModels />
    </Panel>
  );
}

/** The models folder's absolute path with the way to reach it (open on the desktop, copy in a browser). */
export function ModelsFolderLine(props: { children?: ReactNode }) {
  const status = useSlice('ui', (s) => s.status);
  return (
    <div className="folder-line">
      <code data-testid="models-folder-path">{status?.modelsDir ?? '…'}</code>
      {status && <FolderAction host={status.host} path={status.modelsDir} />}
      {props.children}
    </div>
  );
}

/** Open the folder (the desktop app can), or copy its path (a browser cannot open folders). */
function FolderAction(props: { host: 'electron' | 'headless'; path: string }) {
  const { modelSources } = useStores();
  const [problem, setProblem] = useState<string | null>(null);
  if (props.host === 'headless')
    return <CopyButton label="Copy path" testId="models-folder-copy" text={() => props.path} />;
  const open = async () => setProblem(await modelSources.getState().openModelsFolder());
  return (
    <>
      <button type="button" data-testid="models-folder-open" onClick={() => void open()}>
        Open folder
      </button>
      {problem && <span className="notice error">{problem}</span>}
    </>
  );
}
