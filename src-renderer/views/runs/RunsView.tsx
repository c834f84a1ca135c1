import { useCallback, useEffect, useState } from 'react';
import type { RunComparison, RunSummary } from '../../../src-main/service/contract/report-schemas';
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
  const { bridge } = useStores();
  const slo = useSlice('live', (s) => s.slo);
  const runsToCompare = useSlice('ui', (s) => s.runsToCompare);
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [picked, setPicked] = useState<string[]>(runsToCompare);
  const [comparison, setComparison] = useState<RunComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const result = await bridge.call('runs.list', {});
    if (result.ok) setRuns(result.value);
    else setError(result.error.message);
  }, [bridge]);
  const compare = useCallback(
    async (runIds: string[]) => {
      if (runIds.length < 2 || !slo) return;
      const result = await bridge.call('runs.compare', { runIds, slo });
      setError(result.ok ? null : result.error.message);
      setComparison(result.ok ? result.value : null);
    },
    [bridge, slo],
  );
  // A bench that finishes files a run: the list reloads then, not only when the view opens.
  const numDone = useSlice('bench', (s) => s.benches.filter((b) => b.isDone).length);
  useEffect(() => void load(), [load, numDone]);
  const actions: RunActions = {
    rename: async (runId, name) => {
      const result = await bridge.call('runs.rename', { runId, name });
      await load();
      return result.ok ? null : result.error.message;
    },
    remove: async (runId) => {
      const result = await bridge.call('runs.delete', { runId });
      if (result.ok) {
        setPicked((ids) => ids.filter((id) => id !== runId));
        if (comparison?.configurations.some((c) => c.runIds.includes(runId))) setComparison(null);
      }
      await load();
      return result.ok ? null : result.error.message;
    },
  };
  useEffect(() => {
    if (runsToCompare.length >= 2) void compare(runsToCompare);
  }, [runsToCompare, compare]);
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
          onClick={() => void compare(picked)}
        >
          Compare {picked.length > 1 ? picked.length : ''} runs
        </button>
        {!slo && <p className="muted">Set the TTFT and ITL objectives on the dashboard to see goodput.</p>}
      </Panel>
    </div>
  );
}
