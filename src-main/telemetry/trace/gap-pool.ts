import { TRACE_LIMITS } from '../../limits';
import type { Distribution } from '../report/distribution';
import { emptyDistribution, REPORT_QUANTILES } from '../report/distribution';
import { rankIndex } from '../report/nearest-rank';

/** Arrays start this long and double, so a small import allocates little. */
const MIN_CAPACITY = 1_024;
/**
 * A timeline whose gaps take at most this many distinct values is pooled as (value, count) pairs:
 * a seed record's evenly spread stream (a dozen values, whatever the token count it claims) and a
 * steady decoder's gaps. Past it, its gaps are kept one by one: they came from the line's own text.
 */
const MAX_DISTINCT_PER_TIMELINE = 64;

/**
 * Every inter-token gap of an import, aggregated as it is read so that what is held follows the
 * file's size, not the token counts its lines claim: a 300-character seed record claiming a
 * million tokens holds a dozen (value, count) pairs, not a million gaps (many small uploads of such
 * records each held up to 160 MB). Gaps written out one by one in a line are kept one by one:
 * 8 bytes for the two or more characters each took. The distribution equals
 * distributionOfNonNegative over every gap in the order added, mean included (summed in that order).
 */
export class GapPool {
  private singles = new Float64Array(MIN_CAPACITY);
  private numSingles = 0;
  private pairValues = new Float64Array(MIN_CAPACITY);
  private pairCounts = new Float64Array(MIN_CAPACITY);
  private numPairs = 0;
  private sum = 0;
  private max = -Infinity;
  /** Gaps pooled, singles and the counts of the pairs together. */
  numGaps = 0;

  /** Pools one timeline's gaps (non-negative ms). */
  add(itlMs: readonly number[]): void {
    for (let g = 0; g < itlMs.length; g++) {
      const gap = itlMs[g]!;
      this.sum += gap;
      if (gap > this.max) this.max = gap;
    }
    this.numGaps += itlMs.length;
    const counts = distinctCounts(itlMs);
    if (counts === null) return this.addSingles(itlMs);
    for (const [value, count] of counts) this.addPair(value, count);
  }

  /** Bytes the pooled gaps take (arrays at capacity). */
  get numBytes(): number {
    return (this.singles.length + this.pairValues.length + this.pairCounts.length) * 8;
  }

  /** Count, mean, nearest-rank p50/p90/p95/p99 and max of every gap pooled. Sorts the singles in place. */
  distribution(): Distribution {
    if (this.numGaps === 0) return emptyDistribution();
    const singles = this.singles.subarray(0, this.numSingles).sort();
    const order = Array.from({ length: this.numPairs }, (_, i) => i).sort(
      (a, b) => this.pairValues[a]! - this.pairValues[b]!,
    );
    const ranks = REPORT_QUANTILES.map((q) => rankIndex(this.numGaps, q));
    const values: number[] = [];
    let seen = 0;
    let s = 0;
    let p = 0;
    // Merge the sorted singles and pairs, taking each rank's value as it is passed.
    while (values.length < ranks.length) {
      const isSingle =
        p === order.length || (s < singles.length && singles[s]! <= this.pairValues[order[p]!]!);
      const value = isSingle ? singles[s++]! : this.pairValues[order[p]!]!;
      seen += isSingle ? 1 : this.pairCounts[order[p++]!]!;
      while (values.length < ranks.length && ranks[values.length]! < seen) values.push(value);
    }
    const [p50Ms, p90Ms, p95Ms, p99Ms] = values;
    return {
      count: this.numGaps,
      meanMs: this.sum / this.numGaps,
      p50Ms: p50Ms!,
      p90Ms: p90Ms!,
      p95Ms: p95Ms!,
      p99Ms: p99Ms!,
      maxMs: this.max,
    };
  }

  /** Lets go of everything pooled. */
  clear(): void {
    this.singles = new Float64Array(0);
    this.pairValues = new Float64Array(0);
    this.pairCounts = new Float64Array(0);
    this.numSingles = 0;
    this.numPairs = 0;
  }

  private addSingles(itlMs: readonly number[]): void {
    const needed = this.numSingles + itlMs.length;
    // Doubling, but never past the import's gap cap (TraceImport rejects lines beyond it).
    if (needed > this.singles.length) this.singles = grown(this.singles, needed, TRACE_LIMITS.maxTotalGaps);
    for (let g = 0; g < itlMs.length; g++) this.singles[this.numSingles++] = itlMs[g]!;
  }

  private addPair(value: number, count: number): void {
    if (this.numPairs === this.pairValues.length) {
      this.pairValues = grown(this.pairValues, this.numPairs + 1);
      this.pairCounts = grown(this.pairCounts, this.numPairs + 1);
    }
    this.pairValues[this.numPairs] = value;
    this.pairCounts[this.numPairs++] = count;
  }
}

/** Each distinct gap with its count, or null when there are more than MAX_DISTINCT_PER_TIMELINE. */
function distinctCounts(itlMs: readonly number[]): Map<number, number> | null {
  const counts = new Map<number, number>();
  for (let g = 0; g < itlMs.length; g++) {
    const gap = itlMs[g]!;
    counts.set(gap, (counts.get(gap) ?? 0) + 1);
    if (counts.size > MAX_DISTINCT_PER_TIMELINE) return null;
  }
  return counts;
}

/** A copy at least `needed` long: doubled (up to `cap`), so growth costs O(1) a value. */
function grown(array: Float64Array, needed: number, cap = Infinity): Float64Array<ArrayBuffer> {
  const next = new Float64Array(Math.max(needed, Math.min(array.length * 2, cap), MIN_CAPACITY));
  next.set(array);
  return next;
}
