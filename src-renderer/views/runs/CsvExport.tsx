import { useState } from 'react';
import { useStores } from '../../store';

/**
 * Downloads a run's timelines as CSV (no runId: the live window). Over HTTP the browser
 * streams it from /api/export.csv; over IPC the CSV comes back as a value and is saved as a Blob.
 */
export function CsvExport(props: { runId: string | null; label?: string }) {
  const { bridge } = useStores();
  const [error, setError] = useState<string | null>(null);
  const href = bridge.csvExportUrl(props.runId);
  const testId = `export-csv-${props.runId ?? 'live'}`;
  if (href) {
    return (
      <a className="button" href={href} download data-testid={testId}>
        {props.label ?? 'Export CSV'}
      </a>
    );
  }
  const save = async () => {
    const result = await bridge.call('runs.exportCsv', { runId: props.runId });
    if (!result.ok) return setError(result.error.message);
    const url = URL.createObjectURL(new Blob([result.value.csv], { type: 'text/csv' }));
    const link = Object.assign(document.createElement('a'), { href: url, download: result.value.fileName });
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <>
      <button type="button" data-testid={testId} onClick={() => void save()}>
        {props.label ?? 'Export CSV'}
      </button>
      {error && <span className="notice error">{error}</span>}
    </>
  );
}
