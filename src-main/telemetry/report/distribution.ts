/**
 * A total's distribution: nearest-rank percentiles, the mean and the max, in ms. Every field
 * is null when `count` is 0 (never NaN, so JSON stays honest).
 */
export interface Distribution {
  count: number;
  meanMs: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** The percentiles every report prints. */
export const REPORT_QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;

/** The distribution of nothing: count 0, every statistic null. */
export function emptyDistribution(): Distribution {
  return { count: 0, meanMs: null, p50Ms: null, p90Ms: null, p95Ms: null, p99Ms: null, maxMs: null };
}
