import type { RunSummary } from '../../../src-main/service/contract';
import { ExportControl, formatClock, formatCount } from '../../components';

/** Which stored runs are picked as A and B. */
export type RunPick = { a: string | null; b: string | null };

const SIDES = ['a', 'b'] as const;

/** The stored runs, each with an A and a B radio and its exports. */
export function RunTable(props: { runs: RunSummary[]; pick: RunPick; onPick(pick: RunPick): void }) {
  if (props.runs.length === 0) {
    return <p className="empty-chart">No stored runs yet: run a benchmark or import a trace.</p>;
  }
  return (
    <table className="data-table" data-testid="runs-table">
      <thead>
        <tr>
          {['A', 'B', 'name', 'started', 'requests', 'export'].map((label) => (
            <th key={label} scope="col">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.runs.map((run) => (
          <tr key={run.runId} data-testid="run-row">
            {SIDES.map((side) => (
              <td key={side}>
                <input
                  type="radio"
                  name={`run-${side}`}
                  aria-label={`${side.toUpperCase()}: ${run.name}`}
                  checked={props.pick[side] === run.runId}
                  onChange={() => props.onPick({ ...props.pick, [side]: run.runId })}
                />
              </td>
            ))}
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
