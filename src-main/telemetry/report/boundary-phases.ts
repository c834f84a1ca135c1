import { TTFT_PARTS } from '../timeline/schema';
import type { TtftPart } from '../timeline/schema';
import type { ReportColumns } from './columns';
import { NEXT_TEST } from './remedies';
import { NESTED_PARTS, SEED_PHASES, SEED_REMEDIES, SEED_TTFT_PHASES } from './seed-phases';
import type { Boundary, SeedPhase } from './seed-phases';

/** The phase with the largest mean, its remedy, and the server part that dominates inside it. */
export interface SeedDominant {
  phase: SeedPhase;
  meanMs: number;
  /** Share of the mean TTFT (TTFT phases) or of the mean E2E (stream). */
  share: number | null;
  nextTest: string;
  /** The nested server part with the largest mean, when the phase has server parts. */
  part: TtftPart | null;
  partNextTest: string | null;
}

/**
 * Seed 003's seven phases at one boundary, as means over the same requests (means decompose:
 * the six TTFT phases plus unattributed server time sum to the mean TTFT at that boundary,
 * and adding the stream gives the mean E2E). A phase the boundary cannot observe (the network
 * seen from the server) is null. Each phase lists the means of the server parts inside it.
 */
export interface BoundaryPhases {
  boundary: Boundary;
  numRequests: number;
  meanTtftMs: number | null;
  meanE2eMs: number | null;
  meansMs: Record<SeedPhase, number | null>;
  shares: Record<SeedPhase, number | null>;
  nestedMeansMs: Record<SeedPhase, Partial<Record<TtftPart, number>>>;
  /** Server time before the first token that no stamp explains (belongs to no phase). */
  unattributedMeanMs: number | null;
  dominantTtft: SeedDominant | null;
  dominantE2e: SeedDominant | null;
}

/** Per request: the client figures a client-boundary breakdown reads, NaN where unknown. */
export interface ClientRow {
  networkInMs: number;
  networkToFirstMs: number;
  ttftMs: number;
  streamMs: number;
}

/**
 * The seven phases at `boundary` over the requests `rowOf` accepts (it returns the client
 * figures of a request, or null to leave it out). At the server boundary the network phases
 * are null and the stream is the server's first flush → finish.
 */
export function boundaryPhases(
  columns: ReportColumns,
  boundary: Boundary,
  rowOf: (r: number) => ClientRow | null,
): BoundaryPhases {
  const v = columns.values;
  const partColumns = TTFT_PARTS.map((part) => v[part]);
  const partSums = new Float64Array(TTFT_PARTS.length);
  const sums = { network_in: 0, network_to_first: 0, stream: 0, ttft: 0, unattributed: 0 };
  let n = 0;
  for (let r = 0; r < columns.numRequests; r++) {
    const row = rowOf(r);
    if (!row) continue;
    n++;
    for (let p = 0; p < partColumns.length; p++) partSums[p]! += partColumns[p]![r]!;
    sums.network_in += row.networkInMs;
    sums.network_to_first += row.networkToFirstMs;
    sums.stream += row.streamMs;
    sums.ttft += row.ttftMs;
    sums.unattributed += v.unattributedMs[r]!;
  }
  const mean = (sum: number) => (n === 0 ? null : sum / n);
  const partMeans = Object.fromEntries(TTFT_PARTS.map((part, p) => [part, partSums[p]! / n])) as Record<
    TtftPart,
    number
  >;
  const isServer = boundary === 'server';
  const meansMs = {} as Record<SeedPhase, number | null>;
  const nestedMeansMs = {} as Record<SeedPhase, Partial<Record<TtftPart, number>>>;
  for (const phase of SEED_PHASES) {
    const nested = NESTED_PARTS[phase];
    nestedMeansMs[phase] = n === 0 ? {} : Object.fromEntries(nested.map((p) => [p, partMeans[p]]));
    if (nested.length > 0) meansMs[phase] = n === 0 ? null : nested.reduce((s, p) => s + partMeans[p], 0);
    else if (phase === 'stream') meansMs[phase] = mean(sums.stream);
    else meansMs[phase] = isServer ? null : mean(sums[phase as 'network_in' | 'network_to_first']);
  }
  const meanTtftMs = mean(sums.ttft);
  const meanE2eMs = meanTtftMs === null ? null : meanTtftMs + (meansMs.stream ?? 0);
  const shares = {} as Record<SeedPhase, number | null>;
  for (const phase of SEED_PHASES) {
    const whole = phase === 'stream' ? meanE2eMs : meanTtftMs;
    const ms = meansMs[phase];
    shares[phase] = ms === null || !whole ? null : ms / whole;
  }
  const dominant = (phases: readonly SeedPhase[], whole: number | null) =>
    dominantOf(meansMs, nestedMeansMs, phases, whole);
  return {
    boundary,
    numRequests: n,
    meanTtftMs,
    meanE2eMs,
    meansMs,
    shares,
    nestedMeansMs,
    unattributedMeanMs: mean(sums.unattributed),
    dominantTtft: dominant(SEED_TTFT_PHASES, meanTtftMs),
    dominantE2e: dominant(SEED_PHASES, null),
  };
}

/** The largest mean among `phases` (ties go to the earlier phase), with its remedies. */
function dominantOf(
  meansMs: Record<SeedPhase, number | null>,
  nested: Record<SeedPhase, Partial<Record<TtftPart, number>>>,
  phases: readonly SeedPhase[],
  wholeMs: number | null,
): SeedDominant | null {
  let best: SeedPhase | null = null;
  for (const phase of phases) {
    const ms = meansMs[phase];
    if (ms !== null && (best === null || ms > meansMs[best]!)) best = phase;
  }
  if (best === null) return null;
  const meanMs = meansMs[best]!;
  let part: TtftPart | null = null;
  for (const [p, ms] of Object.entries(nested[best]) as [TtftPart, number][])
    if (part === null || ms > nested[best][part]!) part = p;
  return {
    phase: best,
    meanMs,
    share: wholeMs ? meanMs / wholeMs : null,
    nextTest: SEED_REMEDIES[best],
    part,
    partNextTest: part === null ? null : NEXT_TEST[part],
  };
}

/**
 * A server-boundary row: requests with a first token served here (remote engines' are left
 * out); the stream is first flush → finish.
 */
export function serverRowOf(columns: ReportColumns): (r: number) => ClientRow | null {
  const v = columns.values;
  return (r) => {
    const ttft = v.ttftMs[r]!;
    // A remote engine's TTFT was measured at the client: it has no place at the server boundary.
    if (Number.isNaN(ttft) || v.isRemote[r] === 1) return null;
    return { networkInMs: NaN, networkToFirstMs: NaN, ttftMs: ttft, streamMs: v.e2eMs[r]! - ttft };
  };
}
