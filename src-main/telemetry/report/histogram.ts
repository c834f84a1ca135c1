/** Default TTFT bucket edges (ms) for side-by-side run histograms: roughly ×2 steps to 16 s. */
export const DEFAULT_TTFT_EDGES_MS: readonly number[] = [
  0, 50, 100, 200, 400, 800, 1_600, 3_200, 6_400, 12_800,
];

/**
 * Counts of the non-NaN `values` per bucket: bucket i holds edges[i] ≤ v < edges[i+1]; the
 * last bucket is open above; values below edges[0] land in bucket 0.
 */
export function histogram(values: Float64Array, n: number, edgesMs: readonly number[]): number[] {
  const counts = new Array<number>(edgesMs.length).fill(0);
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (Number.isNaN(value)) continue;
    let lo = 0;
    let hi = edgesMs.length - 1;
    // Binary search for the last edge ≤ value.
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (edgesMs[mid]! <= value) lo = mid;
      else hi = mid - 1;
    }
    counts[lo]!++;
  }
  return counts;
}
