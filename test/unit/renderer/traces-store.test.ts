import { describe, expect, it } from 'vitest';
import { createTracesStore } from '../../../src-renderer/store/traces-store';
import { BridgeDouble } from './bridge-double';

const FILE = { fileName: 'trace.jsonl', text: '{}\nbad\n' };

describe('the traces store', () => {
  it('keeps the picked file and marks a strict import, so a refused one can take its good lines', async () => {
    const bridge = new BridgeDouble({
      'traces.import': (input) => ({
        numLines: 2,
        numImported: input.skipBadLines ? 1 : 0,
        rejected: [{ line: 2, reason: 'not JSON' }],
        numRejected: 1,
        report: null,
        runId: input.skipBadLines ? 'r1' : null,
      }),
    });
    const store = createTracesStore(bridge);
    await store.getState().importTrace(FILE, false);
    expect(store.getState()).toMatchObject({ picked: FILE, isImporting: false, error: null });
    expect(store.getState().result).toMatchObject({
      fileName: 'trace.jsonl',
      wasStrict: true,
      numImported: 0,
    });
    await store.getState().importTrace(store.getState().picked!, true);
    expect(store.getState().result).toMatchObject({ wasStrict: false, numImported: 1, runId: 'r1' });
    expect(bridge.inputsOf('traces.import')).toEqual([
      { ...FILE, skipBadLines: false },
      { ...FILE, skipBadLines: true },
    ]);
  });

  it("shows the service's refusal in place of a result, and forgets it all when Traces opens again", async () => {
    const store = createTracesStore(new BridgeDouble({}));
    await store.getState().importTrace(FILE, false);
    expect(store.getState()).toMatchObject({ result: null, error: 'traces.import not answered' });
    store.getState().open();
    expect(store.getState()).toMatchObject({ picked: null, result: null, error: null });
  });
});
