import { useState } from 'react';
import type { MethodOutput } from '../../../src-main/service/contract';
import { useStores } from '../../store';
import { BoundaryPhasesPanel, ReportSummary } from '../dashboard';
import { asLatencyReport } from './as-report';
import { TraceDropZone } from './TraceDropZone';
import { Notice, Panel } from '../../components';

type ImportResult = MethodOutput<'traces.import'> & { fileName: string };

/** Traces: import a JSONL trace, see each rejected line with its reason, and the report. */
export function TracesView() {
  const { bridge } = useStores();
  const [skipBadLines, setSkipBadLines] = useState(false);
  const [isBusy, setIsBusy] = useState(false);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onFile = async (fileName: string, text: string) => {
    setIsBusy(true);
    const answer = await bridge.call('traces.import', { fileName, text, skipBadLines });
    setIsBusy(false);
    setError(answer.ok ? null : answer.error.message);
    setResult(answer.ok ? { ...answer.value, fileName } : null);
  };
  const report = asLatencyReport(result?.report ?? null);
  return (
    <div className="traces-view">
      <Panel title="Import a trace" className="wide">
        <TraceDropZone onFile={(name, text) => void onFile(name, text)} isBusy={isBusy} />
        <label className="checkbox">
          <input type="checkbox" checked={skipBadLines} onChange={(e) => setSkipBadLines(e.target.checked)} />
          Import the good lines even when some are bad
        </label>
        {error && <Notice tone="error">{error}</Notice>}
        {result && <ImportSummary result={result} />}
      </Panel>
      {report && (
        <Panel title={`Seed 003 phases (${report.boundary} boundary)`} className="wide">
          <BoundaryPhasesPanel report={report} />
        </Panel>
      )}
      {report && (
        <ReportSummary
          report={report}
          title={`${result?.fileName ?? 'trace'}: percentiles over ${report.numRequests} requests`}
        />
      )}
    </div>
  );
}

function ImportSummary(props: { result: ImportResult }) {
  const r = props.result;
  return (
    <div className="import-summary" data-testid="trace-result">
      <p>
        {r.fileName}: {r.numImported} of {r.numLines} lines imported{r.runId ? ` as run ${r.runId}` : ''}.
      </p>
      {r.rejected.length > 0 && (
        <ul className="rejected" aria-label="Rejected lines">
          {r.rejected.map((line) => (
            <li key={line.line} data-testid="rejected-line" data-line={line.line}>
              <b>line {line.line}</b>: {line.reason}
            </li>
          ))}
          {r.numRejected > r.rejected.length && (
            <li data-testid="rejected-more">and {r.numRejected - r.rejected.length} more rejected lines</li>
          )}
        </ul>
      )}
    </div>
  );
}
