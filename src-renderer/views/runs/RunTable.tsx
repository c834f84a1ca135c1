import { useState } from 'react';
import type { RunSummary } from '../../../src-main/service/contract/report-schemas';
import { Confirm } from '../../components/Confirm';
import { ExportControl } from '../../components/ExportControl';
import { formatClock, formatCount } from '../../components/format';
import { RunName } from './RunName';

/** The most runs one comparison takes (configurations × workloads). */
export const MAX_COMPARED = 8;

/** What the table asks of the view: rename and delete a run; each resolves with the error or null. */
export interface RunActions {
  rename(runId: string, name: string): Promise<string | null>;
  remove(runId: string): Promise<string | null>;
}

/** The stored runs, each with a compare checkbox, its exports, rename and delete (confirmed). */
export function RunTable(props: {
  runs: RunSummary[];
  picked: string[];
  onPick(runIds: string[]): void;
  actions: RunActions;
}) {
  if (props.runs.length === 0) {
    return <p className="empty-chart">No stored runs yet: run a benchmark or import a trace.</p>;
  }
  const toggle = (runId: string, isOn: boolean) =>
    props.onPick(
      isOn ? [...props.picked, runId].slice(-MAX_COMPARED) : props.picked.filter((id) => id !== runId),
    );
  return (
    <div className="table-scroll">
      <table className="data-table runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th scope="col">compare</th>
            <th scope="col">name</th>
            <th scope="col">started</th>
            <th scope="col">requests</th>
            <th scope="col">export</th>
            <th scope="col">
              <span className="visually-hidden">delete</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.runs.map((run) => (
            <tr key={run.runId} data-testid="run-row" data-run-id={run.runId}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`compare ${run.name}`}
                  checked={props.picked.includes(run.runId)}
                  onChange={(e) => toggle(run.runId, e.target.checked)}
                />
              </td>
              <th scope="row">
                <RunName run={run} onRename={(name) => props.actions.rename(run.runId, name)} />
              </th>
              <td>{formatClock(run.startedWallMs)}</td>
              <td>{formatCount(run.numRequests)}</td>
              <td>
                <ExportControl runId={run.runId} />
              </td>
              <td>
                <DeleteRun run={run} onDelete={() => props.actions.remove(run.runId)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Delete, then a confirmation naming what goes (the run and its requests, from the history). */
function DeleteRun(props: { run: RunSummary; onDelete(): Promise<string | null> }) {
  const [isAsking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!isAsking)
    return (
      <button
        type="button"
        className="quiet small"
        data-testid="run-delete"
        aria-label={`Delete ${props.run.name}`}
        onClick={() => setAsking(true)}
      >
        Delete
      </button>
    );
  return (
    <Confirm
      placement="inline"
      label="Confirm delete"
      testId="run-delete-confirm"
      action="Delete"
      actionTestId="run-delete-confirmed"
      onConfirm={() => void props.onDelete().then(setProblem)}
      onCancel={() => setAsking(false)}
      after={problem && <span className="notice error">{problem}</span>}
    >
      Delete this run and its {formatCount(props.run.numRequests)} requests from the history?
    </Confirm>
  );
}
