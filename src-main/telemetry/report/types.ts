import type { Conditioning } from './conditioning';
import type { Distribution } from './distribution';
import type { Exceedance } from './exceedance';
import type { Goodput, Slo, Throughput } from './goodput';
import type { LittlesLaw, ObservationWindow } from './littles-law';
import type { BoundaryPhases } from './boundary-phases';
import type { ClientBoundary } from './client-boundary';
import type { DominantPhase, E2eBreakdown, PartBreakdown } from './phases';
import type { E2ePhase, TtftPhase } from './remedies';
import type { Boundary } from './seed-phases';

/** What a report over a set of timelines is computed with; every field has a stated default. */
export interface ReportOptions {
  /** Goodput objectives; without them the report has throughput but no goodput. */
  slo?: Slo | null;
  /** Window for Little's law and rates; default: earliest arrival → latest finish. */
  window?: ObservationWindow | null;
  /** Relative L vs λW gap tolerated before the window is flagged (default 0.1). */
  littleTolerance?: number;
  /** Minimum requests per class cell before statistics are shown (default 20). */
  minCellCount?: number;
  /** Prompt band lower edges in tokens, ascending, starting at 0. */
  promptBandEdges?: readonly number[];
  /**
   * The boundary goodput and the exceedance set are computed at; `auto` (the default) is the
   * client boundary when any request carries client stamps, else the server's.
   */
  boundary?: Boundary | 'auto';
}

/** Where each total's clock starts and stops, printed beside its numbers. */
export const BOUNDARIES = {
  ttft: 'server: arrival at the main process → first chunk flushed to the transport',
  clientTtft:
    "client: the client's send → its first chunk received (its own clock; requests that reported it)",
  itl: 'server, pooled: every gap between consecutive flushed tokens of every request, one population',
  e2e: 'server: arrival → finish, completed responses (stop, length) only',
  clientItl:
    "client, per request: (last − first chunk received) ÷ (output tokens − 1), seed 003's per-request gap",
  clientE2e: "client: the client's send → its last chunk received, completed responses (stop, length) only",
  transport: 'client TTFT − server TTFT of the same request: both network legs (durations, never raw stamps)',
} as const;

/** Prompt and output length shape of the set (nearest-rank, tokens). */
export interface TokenShape {
  promptP50: number | null;
  promptP95: number | null;
  outputP50: number | null;
  outputP95: number | null;
}

/**
 * A latency report over any set of timelines (a live window, a stored run, an imported trace):
 * percentiles for totals, means and shares for parts, the dominant phases with their next test,
 * the exceedance set, Little's law, throughput/goodput and per-class statistics. An empty set
 * gives `isEmpty` with a note and nulls, never NaN.
 */
export interface LatencyReport {
  numRequests: number;
  isEmpty: boolean;
  note: string | null;
  /** The boundary goodput and the exceedance set use (see ReportOptions.boundary). */
  boundary: Boundary;
  boundaries: typeof BOUNDARIES;
  /** Client-boundary totals and seed 003's seven phases; null when no request carries client stamps. */
  client: ClientBoundary | null;
  /** Seed 003's seven phases seen from the server (network phases null, stream = first flush → finish). */
  serverPhases: BoundaryPhases;
  tokens: TokenShape;
  ttft: Distribution;
  clientTtft: Distribution;
  itl: Distribution;
  e2e: Distribution;
  parts: PartBreakdown;
  e2ePhases: E2eBreakdown;
  dominantTtftPhase: DominantPhase<TtftPhase> | null;
  dominantE2ePhase: DominantPhase<E2ePhase> | null;
  exceedance: Exceedance | null;
  littlesLaw: LittlesLaw | null;
  throughput: Throughput | null;
  goodput: Goodput | null;
  conditioning: Conditioning;
}
