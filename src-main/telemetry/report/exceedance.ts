import type { ReportColumns } from './columns';
import type { ClassIndex } from './classes';
import { describeExceedance } from './exceedance-sentence';
import { phaseColumnsOf, TTFT_PHASES } from './phases';
import type { TtftPhase } from './remedies';
import type { Boundary } from './seed-phases';

/** What one side of the exceedance split looks like. Shares are 0..1, null with no requests. */
export interface ExceedanceGroup {
  numRequests: number;
  meanTtftMs: number | null;
  partMeansMs: Record<TtftPhase, number | null>;
  /** Share of the group's requests in each prompt band (band label → share). */
  promptBandShares: Record<string, number>;
  /** Cached prompt tokens ÷ prompt tokens over the group. */
  cachedTokenShare: number | null;
  /** Share of the group's requests that found their slot cold. */
  coldSlotShare: number | null;
  /** Share of the group's requests per model. */
  modelShares: Record<string, number>;
  /** Mean client TTFT − server TTFT (both network legs), at the client boundary only. */
  transportMeanMs: number | null;
}

/**
 * The requests above p95 TTFT at the named boundary (`slow`, strictly above the threshold)
 * against the rest of the requests with a TTFT there, and a sentence saying what the slow
 * ones share.
 */
export interface Exceedance {
  boundary: Boundary;
  thresholdMs: number;
  slow: ExceedanceGroup;
  rest: ExceedanceGroup;
  sentence: string;
}

interface GroupSums {
  num: number;
  sumTtft: number;
  phases: Float64Array;
  bands: Uint32Array;
  models: Uint32Array;
  prompt: number;
  cached: number;
  cold: number;
  transport: number;
}

/**
 * Splits the requests with a TTFT at `boundary` at `thresholdMs` (that boundary's p95 TTFT)
 * and compares the two sides.
 */
export function exceedanceOf(
  columns: ReportColumns,
  thresholdMs: number,
  bands: ClassIndex,
  models: ClassIndex,
  boundary: Boundary = 'server',
): Exceedance {
  const groups = [newSums(bands, models), newSums(bands, models)] as const;
  const v = columns.values;
  const ttftColumn = boundary === 'client' ? v.clientTtftMs : v.ttftMs;
  const phaseColumns = phaseColumnsOf(columns);
  for (let r = 0; r < columns.numRequests; r++) {
    const ttft = ttftColumn[r]!;
    if (Number.isNaN(ttft) || Number.isNaN(v.ttftMs[r]!)) continue;
    const g = groups[ttft > thresholdMs ? 0 : 1];
    g.num++;
    g.sumTtft += ttft;
    g.transport += v.clientTtftMs[r]! - v.ttftMs[r]!;
    for (let p = 0; p < phaseColumns.length; p++) g.phases[p]! += phaseColumns[p]![r]!;
    g.bands[bands.cellOf[r]!]!++;
    g.models[models.cellOf[r]!]!++;
    g.prompt += v.numPromptTokens[r]!;
    g.cached += v.numCachedTokens[r]!;
    g.cold += v.isColdSlot[r]!;
  }
  const isClient = boundary === 'client';
  const slow = toGroup(groups[0], bands, models, isClient);
  const rest = toGroup(groups[1], bands, models, isClient);
  return {
    boundary,
    thresholdMs,
    slow,
    rest,
    sentence: describeExceedance(thresholdMs, slow, rest, boundary),
  };
}

function newSums(bands: ClassIndex, models: ClassIndex): GroupSums {
  return {
    num: 0,
    sumTtft: 0,
    phases: new Float64Array(TTFT_PHASES.length),
    bands: new Uint32Array(bands.labels.length),
    models: new Uint32Array(models.labels.length),
    prompt: 0,
    cached: 0,
    cold: 0,
    transport: 0,
  };
}

function toGroup(g: GroupSums, bands: ClassIndex, models: ClassIndex, isClient: boolean): ExceedanceGroup {
  const per = (x: number): number | null => (g.num === 0 ? null : x / g.num);
  const partMeansMs = {} as Record<TtftPhase, number | null>;
  TTFT_PHASES.forEach((phase, p) => (partMeansMs[phase] = per(g.phases[p]!)));
  return {
    numRequests: g.num,
    meanTtftMs: per(g.sumTtft),
    partMeansMs,
    promptBandShares: sharesByLabel(g.bands, bands.labels, g.num),
    cachedTokenShare: g.prompt === 0 ? null : g.cached / g.prompt,
    coldSlotShare: per(g.cold),
    modelShares: sharesByLabel(g.models, models.labels, g.num),
    transportMeanMs: isClient ? per(g.transport) : null,
  };
}

function sharesByLabel(
  counts: Uint32Array,
  labels: readonly string[],
  total: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  if (total === 0) return out;
  counts.forEach((count, i) => {
    if (count > 0) out[labels[i]!] = count / total;
  });
  return out;
}
