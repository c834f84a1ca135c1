import { TTFT_PARTS } from '../timeline/schema';
import { transportMs } from '../timeline/derive';
import type { ReportColumns } from './columns';
import type { E2ePhase, TtftPhase } from './remedies';
import { NEXT_TEST } from './remedies';

/** Every TTFT phase in life order, `unattributed` last. */
export const TTFT_PHASES: readonly TtftPhase[] = [...TTFT_PARTS, 'unattributed'];
/** Every end-to-end phase: the TTFT phases, then decode and transport. */
export const E2E_PHASES: readonly E2ePhase[] = [...TTFT_PHASES, 'decode', 'transport'];

/** Each phase's name for people (reports, sentences, the UI): never the identifier. */
export const PHASE_NAMES: Readonly<Record<E2ePhase, string>> = {
  inbox: 'inbox',
  route: 'route',
  slotLoad: 'slot load',
  queue: 'queue',
  requeue: 'requeue',
  lostPrefill: 'lost prefill',
  activation: 'activation',
  contextLookup: 'context lookup',
  prefill: 'prefill',
  emit: 'emit',
  unattributed: 'unattributed',
  decode: 'decode',
  transport: 'transport',
};

/**
 * Means of the TTFT parts over the requests that produced a first token, and each part's share
 * of the mean TTFT. Means decompose (the part means plus unattributed sum to the mean TTFT);
 * percentiles do not, so parts never get percentiles.
 */
export interface PartBreakdown {
  numRequests: number;
  meanTtftMs: number | null;
  meansMs: Record<TtftPhase, number | null>;
  shares: Record<TtftPhase, number | null>;
}

/** The phase with the largest mean, with the experiment to run next. */
export interface DominantPhase<P extends string> {
  phase: P;
  meanMs: number;
  /** Share of the mean TTFT (TTFT phases) or null (end-to-end phases have no common whole). */
  share: number | null;
  nextTest: string;
}

/**
 * Means of the end-to-end phases. TTFT phases and decode average over requests with a first
 * token; transport averages over those whose client also reported TTFT (`numWithClientTtft`).
 */
export interface E2eBreakdown {
  numWithFirstToken: number;
  numWithClientTtft: number;
  meansMs: Record<E2ePhase, number | null>;
}

/** The column holding each TTFT phase, in TTFT_PHASES order. */
export function phaseColumnsOf(columns: ReportColumns): Float64Array[] {
  const v = columns.values;
  return TTFT_PHASES.map((p) => (p === 'unattributed' ? v.unattributedMs : v[p]));
}

/** Sums every phase over the requests with a first token, in one pass. */
export function breakDown(columns: ReportColumns): { parts: PartBreakdown; e2e: E2eBreakdown } {
  const v = columns.values;
  const sums = new Float64Array(E2E_PHASES.length);
  const phaseColumns = phaseColumnsOf(columns);
  let numWithTtft = 0;
  let numWithClient = 0;
  let sumTtft = 0;
  const decodeAt = TTFT_PHASES.length;
  for (let r = 0; r < columns.numRequests; r++) {
    const ttft = v.ttftMs[r]!;
    if (Number.isNaN(ttft)) continue;
    numWithTtft++;
    sumTtft += ttft;
    for (let p = 0; p < phaseColumns.length; p++) sums[p]! += phaseColumns[p]![r]!;
    sums[decodeAt]! += v.e2eMs[r]! - ttft;
    const client = v.clientTtftMs[r]!;
    if (!Number.isNaN(client)) {
      numWithClient++;
      sums[decodeAt + 1]! += transportMs(client, ttft)!;
    }
  }
  return toBreakdowns(sums, numWithTtft, numWithClient, sumTtft);
}

function toBreakdowns(sums: Float64Array, numWithTtft: number, numWithClient: number, sumTtft: number) {
  const mean = (sum: number, n: number): number | null => (n === 0 ? null : sum / n);
  const meanTtftMs = mean(sumTtft, numWithTtft);
  const e2eMeans = {} as Record<E2ePhase, number | null>;
  E2E_PHASES.forEach((phase, i) => {
    e2eMeans[phase] = mean(sums[i]!, phase === 'transport' ? numWithClient : numWithTtft);
  });
  const partMeans = {} as Record<TtftPhase, number | null>;
  const shares = {} as Record<TtftPhase, number | null>;
  for (const phase of TTFT_PHASES) {
    partMeans[phase] = e2eMeans[phase];
    shares[phase] = meanTtftMs ? e2eMeans[phase]! / meanTtftMs : null;
  }
  return {
    parts: { numRequests: numWithTtft, meanTtftMs, meansMs: partMeans, shares },
    e2e: { numWithFirstToken: numWithTtft, numWithClientTtft: numWithClient, meansMs: e2eMeans },
  };
}

/** The phase with the largest mean among `phases`; ties go to the earlier phase. Null without data. */
export function dominantOf<P extends E2ePhase>(
  meansMs: Partial<Record<P, number | null>>,
  phases: readonly P[],
  wholeMs: number | null,
): DominantPhase<P> | null {
  let best: P | null = null;
  let bestMs = -Infinity;
  for (const phase of phases) {
    const ms = meansMs[phase];
    if (ms !== null && ms !== undefined && ms > bestMs) {
      best = phase;
      bestMs = ms;
    }
  }
  if (best === null) return null;
  return { phase: best, meanMs: bestMs, share: wholeMs ? bestMs / wholeMs : null, nextTest: NEXT_TEST[best] };
}
