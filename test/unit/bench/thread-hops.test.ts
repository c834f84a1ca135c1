import { describe, expect, it } from 'vitest';
import { measureThreadHops } from '../../../bench/first-frame/thread-hops';

describe('first-frame bench: bare thread hops', () => {
  it('times both hops of a round trip to a bare worker that stays busy as long as asked', async () => {
    const startedAt = performance.now();
    const hops = await measureThreadHops(5, 3, 1);
    // Three runs of at least 1 ms idle plus 5 ms busy each.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(18);
    expect(hops).toMatchObject({ busyMs: 5, idleMs: 1, numRuns: 3 });
    for (const hopMs of [hops.inboundMs, hops.replyMs]) {
      expect(Number.isFinite(hopMs)).toBe(true);
      expect(hopMs).toBeGreaterThanOrEqual(0);
    }
  });
});
