import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  nearestRankSorted,
  quantilesInPlace,
  rankIndex,
  selectInPlace,
} from '../../../../src-main/telemetry/report/nearest-rank';

describe('nearest rank', () => {
  it('takes the value at rank ⌈q·n⌉, never an interpolation between two requests', () => {
    const sorted = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    expect(nearestRankSorted(sorted, 0.5)).toBe(50);
    expect(nearestRankSorted(sorted, 0.9)).toBe(90);
    expect(nearestRankSorted(sorted, 0.95)).toBe(100);
    expect(nearestRankSorted([1, 2, 3, 4], 0.5)).toBe(2);
  });

  it('is not pushed up a rank by binary rounding of q·n (0.07 × 100)', () => {
    expect(rankIndex(100, 0.07)).toBe(6);
    expect(rankIndex(100, 0.95)).toBe(94);
    expect(rankIndex(1, 0.5)).toBe(0);
  });

  it('gives null for an empty set instead of NaN', () => {
    expect(nearestRankSorted([], 0.95)).toBeNull();
    expect(quantilesInPlace(new Float64Array(0), 0, [0.5, 0.95])).toEqual([null, null]);
  });

  it('selects the same values a full sort would, for any input and any quantiles', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 400 }),
        fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (values, qs) => {
          const sorted = [...values].sort((a, b) => a - b);
          const got = quantilesInPlace(Float64Array.from(values), values.length, qs);
          expect(got).toEqual(qs.map((q) => nearestRankSorted(sorted, q)));
        },
      ),
    );
  });

  it('survives many equal values and already-sorted runs without losing the rank', () => {
    const equal = new Float64Array(10_000).fill(7);
    selectInPlace(equal, 0, equal.length - 1, 9_499);
    expect(equal[9_499]).toBe(7);
    const ascending = Float64Array.from({ length: 10_000 }, (_, i) => i);
    expect(quantilesInPlace(ascending, ascending.length, [0.5, 0.99])).toEqual([4_999, 9_899]);
    const descending = Float64Array.from({ length: 10_000 }, (_, i) => 10_000 - i);
    expect(quantilesInPlace(descending, descending.length, [0.95])).toEqual([9_500]);
  });
});
