import { describe, expect, it } from 'vitest';
import { RememberedSeats } from '../../../../src-main/runtime/engine-loop/remembered-seats';
import type { CachedPage } from '../../../../src-main/runtime/pages/page-store';

const page = (hash: string) =>
  ({ hash, data: { buffer: new SharedArrayBuffer(8), byteOffset: 0, byteLength: 8 } }) as CachedPage;

describe('RememberedSeats', () => {
  it('hands a slot its seat once, and resolves the waiter when the job carrying it settles', async () => {
    const seats = new RememberedSeats();
    let isSeated = false;
    const seated = seats.queue('s1', [page('h0'), page('h1')]).then(() => (isSeated = true));
    expect(seats.has('s1')).toBe(true);
    const pending = seats.take('s1')!;
    expect(pending.pageHashes).toEqual(['h0', 'h1']);
    expect(pending.seat.pages).toHaveLength(2);
    expect(seats.take('s1')).toBeNull();
    await Promise.resolve();
    expect(isSeated).toBe(false);
    seats.settled(pending.seat.seqId);
    await seated;
    expect(isSeated).toBe(true);
  });

  it('lets a newer seat replace a waiting one, and releases every waiter when cleared', async () => {
    const seats = new RememberedSeats();
    const older = seats.queue('s1', [page('a')]);
    const newer = seats.queue('s1', [page('b')]);
    await older; // replaced: its waiter is released at once
    expect(seats.take('s1')!.pageHashes).toEqual(['b']);
    seats.clear();
    await newer;
    await expect(seats.queue('s2', [])).resolves.toBeUndefined(); // nothing to seat
    expect(seats.has('s2')).toBe(false);
  });
});
