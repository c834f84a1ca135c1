import type { RunSummary } from '../../../src-main/service/contract';
import { ExportControl, formatClock, formatCount } from '../../components';

/** The most runs one comparison takes (configurations × workloads). */
export const MAX_COMPARED = 8;

/** The stored runs, each with a compare checkbox and its exports. */
export function RunTable(props: { runs: RunSummary[]; picked: string[]; onPick(runIds: string[]): void }) {
  if (props.runs.length === 0) {
    return <p className="empty-chart">No stored runs yet: run a benchmark or import a trace.</p>;
  }
  const toggle = (runId: string, isOn: boolean) =>
    props.onPick(
      isOn ? [...props.picked, runId].slice(-MAX_COMPARED) : props.picked.filter((id) => id !== runId),
    );
  return (
    <table className="data-table" data-testid="runs-table">
      <thead>
        <tr>
          {['compare', 'name', 'started', 'requests', 'export'].map((label) => (
            <th key={label} scope="col">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.runs.map((run) => (
          <tr key={run.runId} data-testid="run-row">
            <td>
              <input
                type="checkbox"
                aria-label={`compare ${run.name}`}
                checked={props.picked.includes(run.runId)}
                onChange={(e) => toggle(run.runId, e.target.checked)}
              />
            </td>
            <th scope="row" title={JSON.stringify(run.config)}>
              {run.name}
            </th>
            <td>{formatClock(run.startedWallMs)}</td>
            <td>{formatCount(run.numRequests)}</td>
            <td>
              <ExportControl runId={run.runId} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
