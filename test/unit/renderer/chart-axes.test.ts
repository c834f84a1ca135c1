import { describe, expect, it } from 'vitest';
import { indexTicks, valueTicks } from '../../../src-renderer/views/dashboard/bar-rows';
import { bucketLabel } from '../../../src-renderer/views/runs/buckets';
import { describePinning } from '../../../src-renderer/views/slots/pinning';

describe('chart axes and labels people can read', () => {
  it('x ticks: at most six whole indices, both ends included', () => {
    expect(indexTicks(0)).toEqual([]);
    expect(indexTicks(4)).toEqual([0, 1, 2, 3]);
    expect(indexTicks(200)).toEqual([0, 40, 80, 119, 159, 199]);
  });

  it('y ticks: four equal steps to a round top, so labels never crowd', () => {
    expect(valueTicks(2000)).toEqual([0, 500, 1000, 1500, 2000]);
  });

  it('histogram buckets are named by their range; the last is open', () => {
    const edges = [0, 50, 800, 1_600, 12_800];
    expect(bucketLabel(edges, 0)).toBe('0–50 ms');
    expect(bucketLabel(edges, 1)).toBe('50–800 ms');
    expect(bucketLabel(edges, 2)).toBe('800 ms–1.6 s');
    expect(bucketLabel(edges, 4)).toBe('≥ 12.8 s');
  });

  it('memory locking in words, the system limit in MiB rather than RLIMIT byte counts', () => {
    const pinning = describePinning({
      isPinned: false,
      lockedBytes: 0,
      pinnedReason:
        'exceeds RLIMIT_MEMLOCK: need 1073741824 bytes, soft limit 8388608 bytes, already locked 0 bytes',
    });
    expect(pinning.text).toBe(
      'not locked in RAM: the system lets a program lock 8.0 MiB, the model needs 1.0 GiB (raise "ulimit -l" to lock it)',
    );
    expect(pinning.title).toMatch(/RLIMIT_MEMLOCK/);
  });

  it('a small model over the lock limit gets no advice: locking it buys nothing', () => {
    const pinning = describePinning({
      isPinned: false,
      lockedBytes: 0,
      pinnedReason:
        'exceeds RLIMIT_MEMLOCK: need 11534336 bytes, soft limit 8388608 bytes, already locked 0 bytes',
    });
    expect(pinning.text).toBe('not locked in RAM (a model this small does not need it)');
    expect(pinning.title).toMatch(/RLIMIT_MEMLOCK/);
  });

  it('a slot built from the optimized-graph cache: no buffer of ours, ONNX Runtime maps the cache', () => {
    const reason = 'mapped by ONNX Runtime from its optimized-graph cache (no copy of ours to lock)';
    const pinning = describePinning({ isPinned: false, lockedBytes: 0, pinnedReason: reason });
    expect(pinning).toEqual({
      text: 'none of ours: ONNX Runtime maps its optimized-graph cache',
      title: reason,
    });
  });
});
