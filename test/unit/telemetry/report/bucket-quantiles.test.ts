import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  distributionOfNonNegative,
  quantilesOfNonNegative,
} from '../../../../src-main/telemetry/report/bucket-quantiles';
import { nearestRankSorted } from '../../../../src-main/telemetry/report/nearest-rank';

describe('bucketed quantiles of non-negative values', () => {
  it('agree with a full sort, leave the input untouched, skip NaN and fall back for negatives and −0', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.double({ min: 0, max: 1e5, noNaN: true }),
            fc.constantFrom(0, -0, 12.5, Infinity, -3, NaN),
          ),
          { minLength: 1, maxLength: 300 },
        ),
        (values) => {
          const input = Float64Array.from(values);
          const before = input.slice();
          const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
          const qs = [0.5, 0.9, 0.95, 0.99];
          expect(quantilesOfNonNegative(input, qs)).toEqual(qs.map((q) => nearestRankSorted(sorted, q)));
          expect(input).toEqual(before);
          const d = distributionOfNonNegative(input);
          expect(d.count).toBe(sorted.length);
          expect(d.p95Ms).toBe(nearestRankSorted(sorted, 0.95));
        },
      ),
    );
  });

  it('finds the rank inside a crowded bucket of near-equal gaps', () => {
    const gaps = Float64Array.from({ length: 50_000 }, (_, i) => 20 + (i % 997) * 1e-9);
    const sorted = [...gaps].sort((a, b) => a - b);
    expect(quantilesOfNonNegative(gaps, [0.95])).toEqual([nearestRankSorted(sorted, 0.95)]);
    expect(quantilesOfNonNegative(new Float64Array(0), [0.5])).toEqual([null]);
  });
});
