import { useEffect, useState } from 'react';
import { TRACE_EXAMPLE_LINE } from '../../../src-main/telemetry/trace/trace-example';
import { useSlice, useStores } from '../../store/react';
import type { PickedTrace, TraceImport } from '../../store/traces-store';
import { ReportSummary } from '../dashboard/ReportSummary';
import { asLatencyReport } from './as-report';
import { TraceDropZone } from './TraceDropZone';
import { TracePhasesPanel } from './TracePhasesPanel';
import { CopyButton } from '../../components/CopyButton';
import { Notice, Panel } from '../../components/Panel';

/**
 * Traces: what a trace looks like (an example line to copy), import one, see each rejected
 * line with its reason and, when a strict import refused the file, import its good lines in
 * place; then the report.
 */
export function TracesView() {
  const { traces } = useStores();
  const [skipBadLines, setSkipBadLines] = useState(false);
  const isBusy = useSlice('traces', (s) => s.isImporting);
  const picked = useSlice('traces', (s) => s.picked);
  const result = useSlice('traces', (s) => s.result);
  const error = useSlice('traces', (s) => s.error);
  useEffect(() => traces.getState().open(), [traces]);
  const run = (file: PickedTrace, isSkipping: boolean) => traces.getState().importTrace(file, isSkipping);
  const report = asLatencyReport(result?.report ?? null);
  return (
    <div className="traces-view">
      <Panel title="Import a trace" className="wide">
        <TraceFormat />
        <TraceDropZone
          onFile={(fileName, text) => void run({ fileName, text }, skipBadLines)}
          isBusy={isBusy}
        />
        <label className="checkbox">
          <input type="checkbox" checked={skipBadLines} onChange={(e) => setSkipBadLines(e.target.checked)} />
          Import the good lines even when some are bad
        </label>
        {error && <Notice tone="error">{error}</Notice>}
        {result && (
          <ImportSummary
            result={result}
            isBusy={isBusy}
            onImportGood={picked ? () => void run(picked, true) : null}
          />
        )}
      </Panel>
      {report && (
        <Panel title="Where the time went" hint="from sending the request to the last word" className="wide">
          <TracePhasesPanel report={report} />
        </Panel>
      )}
      {report && (
        <ReportSummary
          report={report}
          title={`${result?.fileName ?? 'trace'}: how long its ${report.numRequests} requests took`}
          hint="percentiles by nearest rank"
        />
      )}
    </div>
  );
}

/** What the importer expects, with a line to copy (the same line docs/telemetry.md shows). */
function TraceFormat() {
  return (
    <div className="trace-format">
      <p>
        A trace is a JSONL file: one request per line. Each line is either a request exported from First Frame
        (Runs or Dashboard, JSONL) or a record like this one, with times in milliseconds on one clock:
      </p>
      <div className="trace-example-line">
        <code data-testid="trace-example">{TRACE_EXAMPLE_LINE}</code>
        <CopyButton label="Copy example" testId="trace-example-copy" text={() => TRACE_EXAMPLE_LINE} />
      </div>
    </div>
  );
}

function ImportSummary(props: { result: TraceImport; isBusy: boolean; onImportGood: (() => void) | null }) {
  const r = props.result;
  const numGood = r.numLines - r.numRejected;
  const isRefused = r.wasStrict && r.numRejected > 0 && r.numImported === 0;
  return (
    <div className="import-summary" data-testid="trace-result" data-run-id={r.runId ?? ''}>
      <p>
        {r.fileName}: {r.numImported} of {r.numLines} lines imported
        {r.runId ? ' into a new run (listed under Runs)' : ''}.
        {isRefused &&
          ` ${r.numRejected} ${r.numRejected === 1 ? 'line was' : 'lines were'} bad, so nothing was imported.`}
      </p>
      {isRefused && numGood > 0 && props.onImportGood && (
        <p>
          <button
            type="button"
            className="primary"
            data-testid="import-good-lines"
            disabled={props.isBusy}
            onClick={props.onImportGood}
          >
            Import the {numGood} good {numGood === 1 ? 'line' : 'lines'}
          </button>
        </p>
      )}
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
