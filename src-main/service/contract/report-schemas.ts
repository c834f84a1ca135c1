import { z } from 'zod';
import { QualityResultSchema } from './quality-schemas';
import { TTFT_PARTS } from '../../telemetry/timeline/schema';
import { BOUNDARY_KINDS, SEED_PHASES } from '../../telemetry/report/seed-phases';

/** User-set service objectives: a request meets them when TTFT ≤ ttftMs and its own p95 ITL ≤ itlMs. */
export const SloSchema = z.object({
  ttftMs: z.number().positive().max(3_600_000),
  itlMs: z.number().positive().max(3_600_000),
});
export type Slo = z.infer<typeof SloSchema>;

const msOrNull = z.number().nullable();
const shareOrNull = z.number().min(0).max(1).nullable();
const TTFT_PHASE_NAMES = [...TTFT_PARTS, 'unattributed'] as const;
const E2E_PHASE_NAMES = [...TTFT_PHASE_NAMES, 'decode', 'transport'] as const;
const byPhase = <T extends z.ZodType>(names: readonly string[], value: T) =>
  z.object(Object.fromEntries(names.map((n) => [n, value])) as Record<string, T>);

/** Nearest-rank percentiles of one total (ms); nulls when the population is empty. */
export const DistributionSchema = z.object({
  count: z.number().int(),
  meanMs: msOrNull,
  p50Ms: msOrNull,
  p90Ms: msOrNull,
  p95Ms: msOrNull,
  p99Ms: msOrNull,
  maxMs: msOrNull,
});

const BoundarySchema = z.enum(BOUNDARY_KINDS);
const SeedDominantSchema = z
  .object({
    phase: z.enum(SEED_PHASES),
    meanMs: z.number(),
    share: z.number().nullable(),
    nextTest: z.string(),
    part: z.enum(TTFT_PARTS).nullable(),
    partNextTest: z.string().nullable(),
  })
  .nullable();
/** Seed 003's seven phases at one boundary (telemetry/report's BoundaryPhases). */
const BoundaryPhasesSchema = z.object({
  boundary: BoundarySchema,
  numRequests: z.number().int(),
  meanTtftMs: msOrNull,
  meanE2eMs: msOrNull,
  meansMs: byPhase(SEED_PHASES, msOrNull),
  shares: byPhase(SEED_PHASES, z.number().nullable()),
  nestedMeansMs: byPhase(SEED_PHASES, z.record(z.string(), z.number())),
  unattributedMeanMs: msOrNull,
  dominantTtft: SeedDominantSchema,
  dominantE2e: SeedDominantSchema,
});

const DominantSchema = z
  .object({ phase: z.enum(E2E_PHASE_NAMES), meanMs: z.number(), share: shareOrNull, nextTest: z.string() })
  .nullable();
const ExceedanceGroupSchema = z.object({
  numRequests: z.number().int(),
  meanTtftMs: msOrNull,
  partMeansMs: byPhase(TTFT_PHASE_NAMES, msOrNull),
  promptBandShares: z.record(z.string(), z.number()),
  cachedTokenShare: shareOrNull,
  coldSlotShare: shareOrNull,
  modelShares: z.record(z.string(), z.number()),
  transportMeanMs: msOrNull,
});
const CellSchema = z.object({
  label: z.string(),
  numRequests: z.number().int(),
  isTooSmall: z.boolean(),
  numWithTtft: z.number().int(),
  ttftP50Ms: msOrNull,
  ttftP95Ms: msOrNull,
  meanTtftMs: msOrNull,
  e2eP95Ms: msOrNull,
  dominantPhase: z.string().nullable(),
});
const WindowSchema = z.object({ startAt: z.number(), endAt: z.number() });

/** A latency report over a set of timelines (telemetry/report's LatencyReport, field for field). */
export const ReportSchema = z.object({
  numRequests: z.number().int(),
  isEmpty: z.boolean(),
  note: z.string().nullable(),
  boundary: BoundarySchema,
  boundaries: z.object({
    ttft: z.string(),
    clientTtft: z.string(),
    itl: z.string(),
    e2e: z.string(),
    clientItl: z.string(),
    clientE2e: z.string(),
    transport: z.string(),
  }),
  client: z
    .object({
      numWithClientTtft: z.number().int(),
      ttft: DistributionSchema,
      itl: DistributionSchema,
      e2e: DistributionSchema,
      transport: DistributionSchema,
      numSplit: z.number().int(),
      broken: z.object({ count: z.number().int(), requestIds: z.array(z.string()), rule: z.string() }),
      phases: BoundaryPhasesSchema.nullable(),
    })
    .nullable(),
  serverPhases: BoundaryPhasesSchema,
  tokens: z.object({
    promptP50: z.number().nullable(),
    promptP95: z.number().nullable(),
    outputP50: z.number().nullable(),
    outputP95: z.number().nullable(),
  }),
  ttft: DistributionSchema,
  clientTtft: DistributionSchema,
  itl: DistributionSchema,
  e2e: DistributionSchema,
  parts: z.object({
    numRequests: z.number().int(),
    meanTtftMs: msOrNull,
    meansMs: byPhase(TTFT_PHASE_NAMES, msOrNull),
    shares: byPhase(TTFT_PHASE_NAMES, z.number().nullable()),
  }),
  e2ePhases: z.object({
    numWithFirstToken: z.number().int(),
    numWithClientTtft: z.number().int(),
    meansMs: byPhase(E2E_PHASE_NAMES, msOrNull),
  }),
  dominantTtftPhase: DominantSchema,
  dominantE2ePhase: DominantSchema,
  exceedance: z
    .object({
      boundary: BoundarySchema,
      thresholdMs: z.number(),
      slow: ExceedanceGroupSchema,
      rest: ExceedanceGroupSchema,
      sentence: z.string(),
    })
    .nullable(),
  littlesLaw: z
    .object({
      window: WindowSchema,
      windowMs: z.number(),
      isFullSpan: z.boolean(),
      numCompleted: z.number().int(),
      meanInSystem: z.number(),
      completionsPerS: z.number(),
      meanTimeInSystemMs: msOrNull,
      predictedInSystem: z.number(),
      relativeGap: z.number(),
      tolerance: z.number(),
      isConsistent: z.boolean(),
    })
    .nullable(),
  throughput: z
    .object({
      windowMs: z.number(),
      numFinished: z.number().int(),
      requestsPerS: z.number(),
      outputTokensPerS: z.number(),
      finishShares: z.record(z.string(), z.number()),
      failedOrRejectedShare: z.number(),
    })
    .nullable(),
  goodput: z
    .object({
      boundary: BoundarySchema,
      slo: SloSchema,
      numGood: z.number().int(),
      numUnmeasured: z.number().int(),
      goodShare: shareOrNull,
      goodPerS: z.number(),
      missedTtftShare: shareOrNull,
    })
    .nullable(),
  conditioning: z.object({
    minCount: z.number().int(),
    promptBand: z.array(CellSchema),
    cache: z.array(CellSchema),
    model: z.array(CellSchema),
    finishReason: z.array(CellSchema),
  }),
});
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

const shareOrNullOpen = z.number().nullable();

/** A configuration: the settings (as their flags write them) and model revisions a set of runs shared. */
export const ConfigurationSchema = z.object({
  label: z.string(),
  runIds: z.array(z.string()),
  settings: z.record(z.string(), z.string()),
  modelRevisions: z.record(z.string(), z.string()),
  /** `engine at URL, model M` for runs against a remote engine; null for runs served here. */
  servedBy: z.string().nullable(),
  /** The quality bench's result for the configuration's one model revision, when measured. */
  quality: QualityResultSchema.nullable(),
});

/** One run's row in a workload block; TTFT, ITL and goodput at its boundary. Shares are 0..1. */
export const CompareRowSchema = z.object({
  /** The configuration's label: its runs' letters ("A, B" when both ran the same settings). */
  configLabel: z.string(),
  /** This run's own letter (A, B, … in the order picked). */
  runLabel: z.string(),
  runId: z.string(),
  name: z.string(),
  numRequests: z.number().int(),
  boundary: BoundarySchema,
  requestsPerS: msOrNull,
  outputTokensPerS: msOrNull,
  p50TtftMs: msOrNull,
  p95TtftMs: msOrNull,
  p95ItlMs: msOrNull,
  goodShare: shareOrNullOpen,
  goodPerS: msOrNull,
  missedTtftSloShare: shareOrNullOpen,
  failedOrRejectedShare: shareOrNullOpen,
  serverP95TtftMs: msOrNull,
  quality: ConfigurationSchema.shape.quality,
});

/**
 * Seed 002's comparison: configurations with the settings that differ named, one block per
 * workload with each configuration's figures and a decision sentence against the first, and
 * every run's TTFT histogram on shared bucket edges (ms, at the run's boundary).
 */
export const RunComparisonSchema = z.object({
  configurations: z.array(ConfigurationSchema),
  differingKeys: z.array(z.string()),
  isModelVaried: z.boolean(),
  workloads: z.array(
    z.object({ label: z.string(), rows: z.array(CompareRowSchema), decisions: z.array(z.string()) }),
  ),
  histogram: z.object({
    edgesMs: z.array(z.number()),
    series: z.array(
      z.object({
        runId: z.string(),
        label: z.string(),
        boundary: BoundarySchema,
        counts: z.array(z.number()),
      }),
    ),
  }),
});
export type RunComparison = z.infer<typeof RunComparisonSchema>;
