import { describe, expect, it } from 'vitest';
import {
  capacityStepOf,
  kvGrantBytes,
  kvGrantOf,
  tokenBytesOf,
} from '../../../../src-main/runtime/scheduler/kv-grant';

const GEOMETRY = { numLayers: 2, numKvHeads: 2, headDim: 4, kvDtype: 'float32', rows: 'start' } as const;
const TOKEN_BYTES = 2 * 2 * 2 * 4 * 4;

describe('the K/V buffer grant of a bound slot', () => {
  it('gives a row per seated sequence, as long as the longest rounded up to the step, and none for no row', () => {
    expect(kvGrantOf([5, 17, 9], 16)).toEqual({ numRows: 3, capacity: 32 });
    expect(kvGrantOf([16], 16)).toEqual({ numRows: 1, capacity: 16 });
    expect(kvGrantOf([], 16)).toBeNull();
    expect(kvGrantBytes({ numRows: 3, capacity: 32 }, GEOMETRY)).toBe(3 * 32 * TOKEN_BYTES);
    expect(kvGrantBytes(null, GEOMETRY)).toBe(0);
    expect(tokenBytesOf(GEOMETRY)).toBe(TOKEN_BYTES);
  });

  it('rounds capacity to about 256 tokens in whole pages, but to a page when the budget is tight', () => {
    expect(capacityStepOf(1e9, GEOMETRY, 16)).toBe(256);
    expect(capacityStepOf(1e9, GEOMETRY, 100)).toBe(300);
    // 1,024 tokens in the budget: a sixteenth is 64 tokens, four 16-token pages.
    expect(capacityStepOf(1024 * TOKEN_BYTES, GEOMETRY, 16)).toBe(64);
    expect(capacityStepOf(10 * TOKEN_BYTES, GEOMETRY, 4)).toBe(4);
  });
});
