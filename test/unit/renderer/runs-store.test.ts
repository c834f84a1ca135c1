import { describe, expect, it } from 'vitest';
import type { RunComparison, RunSummary } from '../../../src-main/service/contract/report-schemas';
import { createRunsStore } from '../../../src-renderer/store/runs-store';
import { BridgeDouble } from './bridge-double';

const run = (runId: string): RunSummary => ({
  runId,
  name: runId,
  startedWallMs: 0,
  numRequests: 2,
  config: {},
});
const SLO = { ttftMs: 500, itlMs: 100 };
// Only what the store reads of a comparison: which runs it shows.
const comparisonOf = (runIds: string[]) => ({ configurations: [{ runIds }] }) as unknown as RunComparison;

describe('the runs store', () => {
  it('compares two runs or more against the objectives, and asks nothing for fewer or without them', async () => {
    const bridge = new BridgeDouble({ 'runs.compare': (input) => comparisonOf(input.runIds) });
    const store = createRunsStore(bridge);
    await store.getState().compare(['a'], SLO);
    await store.getState().compare(['a', 'b'], null);
    expect(bridge.inputsOf('runs.compare')).toEqual([]);
    await store.getState().compare(['a', 'b'], SLO);
    expect(bridge.inputsOf('runs.compare')).toEqual([{ runIds: ['a', 'b'], slo: SLO }]);
    expect(store.getState().comparison).toEqual(comparisonOf(['a', 'b']));
  });

  it('drops a comparison that showed a deleted run and lists the runs again', async () => {
    let runs = [run('a'), run('b'), run('c')];
    const bridge = new BridgeDouble({
      'runs.list': () => runs,
      'runs.compare': (input) => comparisonOf(input.runIds),
      'runs.delete': (input) => (
        (runs = runs.filter((r) => r.runId !== input.runId)),
        { isDeleted: true, numRequests: 2 }
      ),
    });
    const store = createRunsStore(bridge);
    await store.getState().open();
    await store.getState().compare(['a', 'b'], SLO);
    expect(await store.getState().remove('c')).toBeNull();
    expect(store.getState().comparison).not.toBeNull();
    expect(await store.getState().remove('a')).toBeNull();
    expect(store.getState().comparison).toBeNull();
    expect(store.getState().runs.map((r) => r.runId)).toEqual(['b']);
  });

  it("resolves a refused rename with the service's sentence", async () => {
    const store = createRunsStore(new BridgeDouble({ 'runs.list': () => [run('a')] }));
    expect(await store.getState().rename('a', 'new name')).toBe('runs.rename not answered');
  });

  it('lists the runs again when a benchmark finishes (it filed a run), not on its progress', async () => {
    const bridge = new BridgeDouble({ 'runs.list': () => [run('a')] });
    const store = createRunsStore(bridge);
    store
      .getState()
      .onEvents([{ name: 'bench.progress', payload: { benchId: 'b', numDone: 1, numTotal: 2, label: 'x' } }]);
    expect(bridge.inputsOf('runs.list')).toHaveLength(0);
    store.getState().onEvents([{ name: 'bench.done', payload: { benchId: 'b', runId: 'a', error: null } }]);
    await expect.poll(() => store.getState().runs).toEqual([run('a')]);
  });

  it('says where an export was saved, or why not', async () => {
    const saved = { filePath: '/tmp/run.csv', numRows: 3 };
    const store = createRunsStore(new BridgeDouble({ 'runs.saveExport': () => saved }));
    expect(await store.getState().saveExport('a', 'csv')).toEqual(saved);
    const refusing = createRunsStore(new BridgeDouble({}));
    expect(await refusing.getState().saveExport(null, 'jsonl')).toBe('runs.saveExport not answered');
  });
});
