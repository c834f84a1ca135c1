import type { Distribution } from './distribution';
import { emptyDistribution, REPORT_QUANTILES } from './distribution';
import { quantilesInPlace, rankIndex, selectInPlace } from './nearest-rank';

/** Buckets keyed by the top 20 bits of a float64: sign, exponent and 8 mantissa bits (1/256 octave). */
const BUCKET_BITS = 20;
const BUCKET_SHIFT = 32 - BUCKET_BITS;
const NUM_BUCKETS = 1 << BUCKET_BITS;
/** Index of a float64's high 32-bit word in a Uint32Array view (1 on little-endian CPUs). */
const HIGH_WORD = new Uint32Array(new Float64Array([1]).buffer)[1] === 0x3ff00000 ? 1 : 0;
const SIGN_BIT = 0x80000000;

/** Allocated on first use (4 MB and 1 MB) and reused: a report must not allocate them per call. */
let histogramScratch: Uint32Array | null = null;
let slotScratch: Uint8Array | null = null;

/** Count, sum and max of the set distributionOfNonNegative last read (reused, not reentrant). */
const summary = { count: 0, sum: 0, max: -Infinity };

/**
 * The distribution (count, mean, nearest-rank p50/p90/p95/p99, max) of the non-NaN values,
 * which are neither reordered nor copied. For non-negative numbers float64 order is the order
 * of the bit patterns, so one pass counts values per 20-bit prefix (and sums them), each rank
 * lands in a known bucket, and a second pass gathers only those buckets for a small selection:
 * millions of values cost two passes instead of a copy and a quickselect. A negative value
 * sends the whole set down the copy-and-select path, with the same result.
 */
export function distributionOfNonNegative(values: Float64Array): Distribution {
  const [p50, p90, p95, p99] = quantilesOfNonNegative(values, REPORT_QUANTILES, summary);
  const { count, sum, max } = summary;
  if (count === 0) return emptyDistribution();
  return { count, meanMs: sum / count, p50Ms: p50!, p90Ms: p90!, p95Ms: p95!, p99Ms: p99!, maxMs: max };
}

/** Nearest-rank quantiles of the non-NaN `values` (null when there are none); see above. */
export function quantilesOfNonNegative(
  values: Float64Array,
  qs: readonly number[],
  totals: { count: number; sum: number; max: number } = { count: 0, sum: 0, max: -Infinity },
): (number | null)[] {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  histogramScratch ??= new Uint32Array(NUM_BUCKETS);
  const histogram = histogramScratch.fill(0);
  let count = 0;
  let sum = 0;
  let max = -Infinity;
  let isNegativeSeen = false;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (value !== value) continue; // NaN: an absent value, not a sample.
    const high = words[2 * i + HIGH_WORD]!;
    if (high >= SIGN_BIT) isNegativeSeen = true;
    histogram[high >>> BUCKET_SHIFT]!++;
    count++;
    sum += value;
    if (value > max) max = value;
  }
  Object.assign(totals, { count, sum, max });
  if (count === 0) return qs.map(() => null);
  if (isNegativeSeen)
    return quantilesInPlace(
      values.filter((v) => v === v),
      count,
      qs,
    );
  const targets = qs.map((q) => locate(histogram, rankIndex(count, q)));
  const gathered = gather(
    values,
    words,
    histogram,
    targets.map((t) => t.bucket),
  );
  return targets.map(({ bucket, rankInBucket }) => {
    const inBucket = gathered.get(bucket)!;
    selectInPlace(inBucket, 0, inBucket.length - 1, rankInBucket);
    return inBucket[rankInBucket]!;
  });
}

/** The bucket holding 0-based `rank` and the rank within it. */
function locate(histogram: Uint32Array, rank: number): { bucket: number; rankInBucket: number } {
  let bucket = 0;
  let below = 0;
  while (below + histogram[bucket]! <= rank) below += histogram[bucket++]!;
  return { bucket, rankInBucket: rank - below };
}

/** Every value of the wanted buckets (one per quantile at most), one array per bucket, in one pass. */
function gather(
  values: Float64Array,
  words: Uint32Array,
  histogram: Uint32Array,
  buckets: number[],
): Map<number, Float64Array> {
  const wanted = [...new Set(buckets)];
  if (wanted.length > 255) throw new RangeError('at most 255 distinct quantiles at once');
  const arrays = wanted.map((b) => new Float64Array(histogram[b]!));
  const fill = new Uint32Array(wanted.length);
  slotScratch ??= new Uint8Array(NUM_BUCKETS);
  // slotOf[bucket] is 1 + the bucket's array index, 0 for buckets nobody asked for.
  const slotOf = slotScratch.fill(0);
  wanted.forEach((b, i) => (slotOf[b] = i + 1));
  for (let i = 0; i < values.length; i++) {
    const slot = slotOf[words[2 * i + HIGH_WORD]! >>> BUCKET_SHIFT]!;
    // A NaN payload can share +∞'s bucket; it was never counted, so it is never gathered.
    if (slot !== 0 && values[i] === values[i]) arrays[slot - 1]![fill[slot - 1]!++] = values[i]!;
  }
  return new Map(wanted.map((b, i) => [b, arrays[i]!]));
}
