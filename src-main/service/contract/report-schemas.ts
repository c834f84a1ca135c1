import { z } from 'zod';

/** User-set service objectives: a request meets them when TTFT ≤ ttftMs and its own p95 ITL ≤ itlMs. */
export const SloSchema = z.object({
  ttftMs: z.number().positive().max(3_600_000),
  itlMs: z.number().positive().max(3_600_000),
});
export type Slo = z.infer<typeof SloSchema>;

/**
 * A latency report over a set of timelines (telemetry/report's output).
 * Provisional: tightened to the report's exact shape once telemetry/report lands.
 */
export const ReportSchema = z.record(z.string(), z.unknown());
export type ReportPayload = z.infer<typeof ReportSchema>;

/** A stored run as the Runs view lists it. */
export const RunSummarySchema = z.object({
  runId: z.string(),
  name: z.string(),
  startedWallMs: z.number(),
  numRequests: z.number().int(),
  config: z.record(z.string(), z.unknown()),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** One side of the Config A vs B table (seed 002). Shares are 0..1. */
export const RunMetricsSchema = z.object({
  runId: z.string(),
  name: z.string(),
  numRequests: z.number().int(),
  outputTokensPerS: z.number().nullable(),
  requestsPerS: z.number().nullable(),
  p95TtftMs: z.number().nullable(),
  missedTtftSloShare: z.number().nullable(),
  failedOrRejectedShare: z.number().nullable(),
});

/** Two runs side by side with TTFT histograms on shared bucket edges (ms). */
export const RunComparisonSchema = z.object({
  a: RunMetricsSchema,
  b: RunMetricsSchema,
  histogram: z.object({
    edgesMs: z.array(z.number()),
    countsA: z.array(z.number()),
    countsB: z.array(z.number()),
  }),
});
export type RunComparison = z.infer<typeof RunComparisonSchema>;
