import { describe, expect, it } from 'vitest';
import { CACHE_HEADROOM_BYTES, cacheRoomProblem } from '../../../../src-main/runtime/engine/graph-cache';

const GB = 1024 ** 3;
const freeOf = (bytes: number) => () => bytes;

describe('cacheRoomProblem', () => {
  it('allows a float graph when four times its size plus the headroom is free', () => {
    expect(cacheRoomProblem('/cache', 2 * GB, true, freeOf(8 * GB + CACHE_HEADROOM_BYTES))).toBeNull();
  });

  it('refuses a float graph short of room, saying what it needs and what is free', () => {
    expect(cacheRoomProblem('/cache', 2 * GB, true, freeOf(6 * GB))).toBe(
      'needs up to 9.0 GB free (the graph and its packed weights, plus 1.0 GB left over), 6.0 GB free',
    );
    expect(
      cacheRoomProblem('/cache', 2 * GB, true, freeOf(8 * GB + CACHE_HEADROOM_BYTES - 1)),
    ).not.toBeNull();
  });

  it('asks only twice its size for a quantized graph, which is cached without packed weights', () => {
    expect(cacheRoomProblem('/cache', 2 * GB, false, freeOf(4 * GB + CACHE_HEADROOM_BYTES))).toBeNull();
    expect(cacheRoomProblem('/cache', 2 * GB, false, freeOf(4 * GB))).toMatch(/^needs up to 5\.0 GB free/);
  });
});
