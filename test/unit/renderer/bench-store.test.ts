import { describe, expect, it } from 'vitest';
import { createBenchStore } from '../../../src-renderer/store/bench-store';
import { BridgeDouble } from './bridge-double';

describe('the bench store', () => {
  it('keeps the kind of a benchmark this window started', async () => {
    const store = createBenchStore(new BridgeDouble({ 'bench.start': () => ({ benchId: 'b1' }) }));
    await store.getState().start({ kind: 'load', numRequests: 2, ratePerS: 20 });
    store
      .getState()
      .onEvents([
        { name: 'bench.progress', payload: { benchId: 'b1', numDone: 1, numTotal: 2, label: 'load replay' } },
      ]);
    expect(store.getState().benches[0]).toMatchObject({ kind: 'load', numDone: 1, label: 'load replay' });
  });

  it('names no kind for a benchmark started elsewhere: it knows only its events', () => {
    const store = createBenchStore(new BridgeDouble({}));
    store
      .getState()
      .onEvents([
        { name: 'bench.progress', payload: { benchId: 'b2', numDone: 1, numTotal: 2, label: 'load replay' } },
      ]);
    expect(store.getState().benches).toEqual([expect.objectContaining({ benchId: 'b2', kind: null })]);
  });
});
