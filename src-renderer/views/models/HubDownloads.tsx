import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import type { HubChoice, HubDownload, HubRepo } from '../../../src-main/service/contract/hub-schemas';
import { formatBytes } from '../../components/format';
import { Notice } from '../../components/Panel';
import { useSlice, useStores } from '../../store/react';

/** Each kind of choice in words. */
const KIND_WORDS: Record<HubChoice['kind'], string> = {
  gguf: 'GGUF',
  onnx: 'ONNX',
  genai: 'ONNX (genai)',
};

/** Each download state in words, as the panel shows it. */
const STATE_WORDS: Record<HubDownload['state'], string> = {
  downloading: 'downloading',
  verifying: 'checking what arrived',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

/**
 * "Get from Hugging Face": the user names a repository (its id or its address), picks one of
 * the models it holds (a GGUF file, an ONNX variant, a genai folder, with size and
 * quantization, against the free disk), and watches it arrive; the app checks each file and
 * lists the model once it is whole.
 */
export function HubDownloads() {
  const { hub } = useStores();
  const downloads = useSlice('hub', (s) => s.downloads);
  const [text, setText] = useState('');
  const repo = useSlice('hub', (s) => s.repo);
  const problem = useSlice('hub', (s) => s.problem);
  const isLooking = useSlice('hub', (s) => s.isLooking);
  useEffect(() => hub.getState().open(), [hub]);
  const look = async (event: FormEvent) => {
    event.preventDefault();
    await hub.getState().look(text);
  };
  const start = (choice: HubChoice) => hub.getState().start(choice);
  return (
    <section className="hub-downloads" data-testid="hub-downloads">
      <h3>Get one from Hugging Face</h3>
      <form className="hub-form" onSubmit={(e) => void look(e)}>
        <label>
          Repository
          <input
            type="text"
            data-testid="hub-repo"
            value={text}
            placeholder="bartowski/Llama-3.2-1B-Instruct-GGUF, or its address"
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <button type="submit" data-testid="hub-look" disabled={text.trim() === '' || isLooking}>
          {isLooking ? 'Looking…' : 'Show its files'}
        </button>
      </form>
      {problem && <Notice tone="error">{problem}</Notice>}
      {repo && <HubChoices repo={repo} downloads={downloads} onPick={(c) => void start(c)} />}
      {downloads.length > 0 && (
        <ul className="downloads" data-testid="hub-download-list">
          {downloads.map((d) => (
            <DownloadLine key={d.downloadId} download={d} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** A repository's runnable files, each with its size and a Download button (or why not). */
function HubChoices(props: {
  repo: HubRepo;
  downloads: readonly HubDownload[];
  onPick(choice: HubChoice): void;
}) {
  const { repo } = props;
  // The latest download of each model says whether it is here now or on its way.
  const latest = new Map(props.downloads.map((d) => [d.modelName, d.state]));
  const others =
    repo.numOtherFiles > 0 ? ` (and ${repo.numOtherFiles} other files that do not run here)` : '';
  if (repo.choices.length === 0)
    return (
      <p className="muted" data-testid="hub-no-choices">
        {repo.repo} holds no GGUF file and no ONNX model First Frame can run{others}.
      </p>
    );
  return (
    <>
      <p className="muted">
        {repo.repo} at {repo.revision.slice(0, 7)}: {repo.choices.length}{' '}
        {repo.choices.length === 1 ? 'model' : 'models'} to choose from
        {others}. {repo.freeBytes === null ? '' : `${formatBytes(repo.freeBytes)} free on this disk.`}
      </p>
      {repo.accessNote && <Notice>{repo.accessNote}</Notice>}
      <table className="hub-choices" data-testid="hub-choices">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Kind</th>
            <th scope="col">Quantization</th>
            <th scope="col">Size</th>
            <th scope="col">
              <span className="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {repo.choices.map((c) => {
            const isTooBig = repo.freeBytes !== null && c.numBytes > repo.freeBytes;
            const state = latest.get(c.modelName);
            const why =
              c.isInModelsFolder || state === 'done'
                ? 'in the models folder'
                : state === 'downloading' || state === 'verifying'
                  ? 'downloading'
                  : isTooBig
                    ? 'not enough room'
                    : null;
            return (
              <tr key={c.filePath} data-testid="hub-choice" data-file={c.filePath}>
                <th scope="row">
                  {c.modelName}
                  {c.kind === 'gguf' && c.numFiles > 1 && (
                    <span className="muted"> · {c.numFiles} parts</span>
                  )}
                </th>
                <td>{KIND_WORDS[c.kind]}</td>
                <td>{c.quant ?? '–'}</td>
                <td>{formatBytes(c.numBytes)}</td>
                <td>
                  {why ? (
                    <span className="muted">{why}</span>
                  ) : (
                    <button type="button" className="small" onClick={() => props.onPick(c)}>
                      Download
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** One download: its progress, its state in words (and why it failed), and Cancel while it runs. */
function DownloadLine(props: { download: HubDownload }) {
  const { hub } = useStores();
  const [problem, setProblem] = useState<string | null>(null);
  const d = props.download;
  const resume = async () => setProblem(await hub.getState().resume(d));
  const isActive = d.state === 'downloading' || d.state === 'verifying';
  const checked =
    d.state === 'done' ? (d.isVerified ? ' · checksum checked' : ' · the hub gave no checksum to check') : '';
  return (
    <li data-testid="hub-download" data-state={d.state}>
      <b>{d.modelName}</b>{' '}
      <progress
        max={Math.max(1, d.bytesTotal)}
        value={d.bytesDone}
        aria-label={`${d.modelName} downloaded`}
      />{' '}
      <span>
        {formatBytes(d.bytesDone)} of {formatBytes(d.bytesTotal)} · {STATE_WORDS[d.state]}
        {isActive &&
          d.bytesPerS !== null &&
          d.bytesPerS > 0 &&
          ` · ${formatBytes(d.bytesPerS)}/s · ${timeLeftWords((d.bytesTotal - d.bytesDone) / d.bytesPerS)}`}
        {checked}
      </span>
      {isActive && (
        <button
          type="button"
          className="quiet small"
          data-testid="hub-cancel"
          onClick={() => void hub.getState().cancel(d.downloadId)}
        >
          Cancel
        </button>
      )}
      {d.state === 'failed' && d.canResume && (
        <button type="button" className="small" data-testid="hub-resume" onClick={() => void resume()}>
          Resume
        </button>
      )}
      {(problem ?? d.error) && <span className="notice error">{problem ?? d.error}</span>}
    </li>
  );
}

/** Seconds left in words a person reads at a glance ("about 3 min left"). */
function timeLeftWords(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s left`;
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min left`;
  return `about ${(seconds / 3600).toFixed(1)} h left`;
}
