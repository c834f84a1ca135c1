import { describe, expect, it } from 'vitest';
import { describeLastLoad } from '../../../src-renderer/views/slots/last-load';

describe('describeLastLoad', () => {
  it('says a slot has not loaded yet', () => {
    expect(describeLastLoad({ graphCache: null, graphCacheReason: null, loadMs: null }).text).toBe(
      'not loaded yet',
    );
  });

  it('says where the session came from and how long the load took', () => {
    expect(describeLastLoad({ graphCache: 'hit', graphCacheReason: null, loadMs: 342.4 }).text).toMatch(
      /^342(\.\d)? ms from the saved optimized graph$/,
    );
    expect(describeLastLoad({ graphCache: 'saved', graphCacheReason: null, loadMs: 1200 }).text).toMatch(
      /from the model file; optimized graph saved for the next load$/,
    );
  });

  it('says a session built from a graph fused at load came from that graph, not the model file', () => {
    const fusion = {
      status: 'fused' as const,
      nodesPerLayer: 10,
      stepNodes: null,
      agreement: { numCompared: 12, numEqual: 12, maxLogitDiff: 0, isExact: true },
      isFromCache: false,
    };
    expect(
      describeLastLoad({ graphCache: 'saved', graphCacheReason: null, loadMs: 2400, fusion }).text,
    ).toMatch(/from the graph fused at load; optimized graph saved for the next load$/);
  });

  it('gives the reason a graph was not saved, keeping the full reason on hover', () => {
    const reason = 'not saved: needs up to 9.0 GiB free (the entry, plus 1.0 GiB left over), 6.0 GiB free';
    const said = describeLastLoad({ graphCache: 'off', graphCacheReason: reason, loadMs: 900 });
    expect(said.text).toMatch(/optimized graph not saved: needs up to 9\.0 GiB free/);
    expect(said.title).toBe(reason);
  });
});
