/**
 * The largest |a[i] − b[i]| of two equal-length arrays (Infinity when the lengths differ): how far
 * two kernels' float results drifted apart by rounding alone.
 */
export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/** The largest |x| of an array: the scale a relative tolerance is taken of. */
export function maxAbs(values: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i]!));
  return max;
}
