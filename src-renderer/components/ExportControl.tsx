import { useState } from 'react';
import type { ExportFormat } from '../../src-main/telemetry/trace/export-formats';
import { EXPORT_FILE_TYPES, EXPORT_FORMATS } from '../../src-main/telemetry/trace/export-formats';
import { useStores } from '../store/react';

/** What the last save said: nothing yet, where it went, or why it failed. */
type SaveStatus = { tone: 'info' | 'error'; text: string; title?: string } | null;

/**
 * Exports a run (runId null: the live window) in every format: CSV, JSONL and a Perfetto trace.
 * In a browser each is a download the host streams from `/api/export.<format>`; in the desktop
 * app each opens the save dialog and the main process streams the file to the chosen path.
 */
export function ExportControl(props: { runId: string | null; label?: string }) {
  const { runs } = useStores();
  const [status, setStatus] = useState<SaveStatus>(null);
  // One dialog at a time: a second click while one is open would stack another.
  const [isSaving, setIsSaving] = useState(false);
  const what = props.runId ?? 'live';
  const save = async (format: ExportFormat) => {
    setIsSaving(true);
    const result = await runs.getState().saveExport(props.runId, format);
    setIsSaving(false);
    if (typeof result === 'string') return setStatus({ tone: 'error', text: result });
    const { filePath, numRows } = result;
    if (filePath === null) return setStatus(null);
    const name = filePath.split(/[\\/]/).at(-1) ?? filePath;
    setStatus({ tone: 'info', text: `saved ${numRows} requests to ${name}`, title: filePath });
  };
  return (
    <span className="export-control" role="group" aria-label={`Export ${props.label ?? what}`}>
      {props.label && <span className="muted">{props.label}</span>}
      {EXPORT_FORMATS.map((format) => {
        const type = EXPORT_FILE_TYPES[format];
        const href = runs.getState().exportUrl(format, props.runId);
        const testId = `export-${format}-${what}`;
        return href ? (
          <a key={format} className="button" href={href} download title={type.summary} data-testid={testId}>
            {type.label}
          </a>
        ) : (
          <button
            key={format}
            type="button"
            title={type.summary}
            data-testid={testId}
            disabled={isSaving}
            onClick={() => void save(format)}
          >
            {type.label}
          </button>
        );
      })}
      {status && (
        <span
          className={status.tone === 'error' ? 'notice error' : 'muted'}
          role="status"
          title={status.title}
        >
          {status.text}
        </span>
      )}
    </span>
  );
}
