import { useCallback, useEffect, useState } from 'react';
import type { RunComparison, RunSummary } from '../../../src-main/service/contract';
import { useSlice, useStores } from '../../store';
import { CompareChart } from './CompareChart';
import { CompareTable } from './CompareTable';
import { RunTable } from './RunTable';
import type { RunPick } from './RunTable';
import { ExportControl, Notice, Panel } from '../../components';

/** Runs: stored runs with their exports, and any two compared side by side. */
export function RunsView() {
  const { bridge } = useStores();
  const slo = useSlice('live', (s) => s.slo);
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [pick, setPick] = useState<RunPick>({ a: null, b: null });
  const [comparison, setComparison] = useState<RunComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const result = await bridge.call('runs.list', {});
    if (result.ok) setRuns(result.value);
    else setError(result.error.message);
  }, [bridge]);
  useEffect(() => void load(), [load]);
  const compare = async () => {
    if (!pick.a || !pick.b || !slo) return;
    const result = await bridge.call('runs.compare', { runIdA: pick.a, runIdB: pick.b, slo });
    setError(result.ok ? null : result.error.message);
    setComparison(result.ok ? result.value : null);
  };
  return (
    <div className="runs-view">
      {error && <Notice tone="error">{error}</Notice>}
      <Panel
        title="Stored runs"
        className="wide"
        actions={<ExportControl runId={null} label="Export the live window" />}
      >
        <RunTable runs={runs} pick={pick} onPick={setPick} />
        <button
          type="button"
          className="primary"
          data-testid="runs-compare"
          disabled={!pick.a || !pick.b || pick.a === pick.b}
          onClick={() => void compare()}
        >
          Compare A vs B
        </button>
      </Panel>
      {comparison && (
        <Panel title="A vs B" className="wide">
          <CompareTable comparison={comparison} />
          <CompareChart comparison={comparison} />
        </Panel>
      )}
    </div>
  );
}
