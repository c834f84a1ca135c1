import { describe, expect, it } from 'vitest';
import { RememberedSeats } from '../../../../src-main/runtime/engine-loop/remembered-seats';
import type { CachedPage } from '../../../../src-main/runtime/pages/ram-pages';

const page = (hash: string) =>
  ({ hash, data: { buffer: new SharedArrayBuffer(8), byteOffset: 0, byteLength: 8 } }) as CachedPage;

describe('RememberedSeats', () => {
  it('hands a slot its seats one job at a time, in order, and resolves once each job settled', async () => {
    const seats = new RememberedSeats();
    let isSeated = false;
    const seated = seats
      .queue('s1', [[page('a0'), page('a1')], [], [page('b0')]])
      .then(() => (isSeated = true));
    const first = seats.take('s1')!;
    expect(first.pageHashes).toEqual(['a0', 'a1']);
    expect(first.seat.pages).toHaveLength(2);
    seats.settled(first.seat.seqId);
    expect(seats.has('s1')).toBe(true);
    const second = seats.take('s1')!;
    expect(second.pageHashes).toEqual(['b0']); // an empty chain has nothing to seat
    expect(seats.take('s1')).toBeNull();
    await Promise.resolve();
    expect(isSeated).toBe(false);
    seats.settled(second.seat.seqId);
    await seated;
    expect(isSeated).toBe(true);
  });

  it('lets newer seats replace waiting ones, and releases every waiter when cleared', async () => {
    const seats = new RememberedSeats();
    const older = seats.queue('s1', [[page('a')]]);
    const newer = seats.queue('s1', [[page('b')]]);
    await older; // replaced: its waiter is released at once
    expect(seats.take('s1')!.pageHashes).toEqual(['b']);
    seats.clear();
    await newer;
    await expect(seats.queue('s2', [])).resolves.toBeUndefined(); // nothing to seat
    expect(seats.has('s2')).toBe(false);
  });
});
