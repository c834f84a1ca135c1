import { describe, expect, it } from 'vitest';
import { measureThreadHops } from '../../../bench/first-frame/thread-hops';

describe('first-frame bench: bare thread hops', () => {
  it('times both hops of a round trip to a bare worker that stays busy as long as asked', async () => {
    const startedAt = performance.now();
    const hops = await measureThreadHops(5, 3, 1);
    const elapsedMs = performance.now() - startedAt;
    // Three runs of at least 1 ms idle plus 5 ms busy each.
    expect(elapsedMs).toBeGreaterThanOrEqual(18);
    expect(hops).toMatchObject({ busyMs: 5, idleMs: 1, numRuns: 3 });
    // Each hop compares stamps of two threads: never earlier than the clocks' alignment allows,
    // and both medians fit in what the main thread timed around the runs beyond their idle and busy periods.
    for (const hopMs of [hops.inboundMs, hops.replyMs]) expect(hopMs).toBeGreaterThan(-0.1);
    expect(hops.inboundMs + hops.replyMs).toBeLessThanOrEqual(elapsedMs - 3 * (5 + 1));
  });
});
