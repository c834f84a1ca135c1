import { useEffect, useState } from 'react';
import { useSlice, useStores } from '../../store/react';
import { CompareChart } from './CompareChart';
import { CompareTable } from './CompareTable';
import { ConfigurationTable } from './ConfigurationTable';
import { RunTable } from './RunTable';
import type { RunActions } from './RunTable';
import { ExportControl } from '../../components/ExportControl';
import { Notice, Panel } from '../../components/Panel';

/**
 * Runs: stored runs with their exports, and any two to eight compared as configurations under
 * their workloads (seed 002). An experiment's arms arrive picked and compared.
 */
export function RunsView() {
  const { runs: store } = useStores();
  const slo = useSlice('live', (s) => s.slo);
  const runsToCompare = useSlice('ui', (s) => s.runsToCompare);
  const runs = useSlice('runs', (s) => s.runs);
  const comparison = useSlice('runs', (s) => s.comparison);
  const error = useSlice('runs', (s) => s.error);
  const [picked, setPicked] = useState<string[]>(runsToCompare);
  // A bench that finishes files a run: the store lists the runs again then, not only here.
  useEffect(() => void store.getState().open(), [store]);
  const actions: RunActions = {
    rename: (runId, name) => store.getState().rename(runId, name),
    remove: async (runId) => {
      const problem = await store.getState().remove(runId);
      if (problem === null) setPicked((ids) => ids.filter((id) => id !== runId));
      return problem;
    },
  };
  useEffect(() => {
    if (runsToCompare.length >= 2) void store.getState().compare(runsToCompare, slo);
  }, [runsToCompare, slo, store]);
  // The results sit above the list the Compare button is under: bring them into view.
  useEffect(() => {
    if (comparison) document.querySelector('[data-testid="compared"]')?.scrollIntoView({ block: 'start' });
  }, [comparison]);
  // The figures first, then what the runs ran with, then the list they were picked from: at
  // 1440×900 the comparison's results are what a user looks for after pressing Compare.
  return (
    <div className="runs-view">
      {error && <Notice tone="error">{error}</Notice>}
      {comparison && (
        <Panel title="Compared" className="wide" testId="compared">
          <CompareTable comparison={comparison} />
          <CompareChart comparison={comparison} />
        </Panel>
      )}
      {comparison && (
        <Panel title="What they ran with" className="wide" testId="configurations">
          <ConfigurationTable comparison={comparison} />
        </Panel>
      )}
      <Panel
        title="Stored runs"
        className="wide"
        actions={<ExportControl runId={null} label="Export the live window" />}
      >
        <RunTable runs={runs} picked={picked} onPick={setPicked} actions={actions} />
        <button
          type="button"
          className="primary"
          data-testid="runs-compare"
          disabled={picked.length < 2}
          onClick={() => void store.getState().compare(picked, slo)}
        >
          Compare {picked.length > 1 ? picked.length : ''} runs
        </button>
        {!slo && <p className="muted">Set the TTFT and ITL objectives on the dashboard to see goodput.</p>}
      </Panel>
    </div>
  );
}
