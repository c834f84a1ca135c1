import { TTFT_PARTS } from '../timeline/schema';
import { transportMs } from '../timeline/derive';
import type { ReportColumns } from './columns';
import type { E2ePhase, TtftPhase } from './remedies';
import { NEXT_TEST } from './remedies';
import type { SeedPhase } from './seed-phases';

/** Every TTFT phase in life order, `unattributed` last. */
export const TTFT_PHASES: readonly TtftPhase[] = [...TTFT_PARTS, 'unattributed'];
/** Every end-to-end phase: the TTFT phases, then decode and transport. */
export const E2E_PHASES: readonly E2ePhase[] = [...TTFT_PHASES, 'decode', 'transport'];

/**
 * The four stages of the wait for the first word, the words every screen leads with: Simple
 * shows only these; Expert names each part by its stage with a detail added (PHASE_NAMES).
 */
export const WAIT_STAGES = ['waiting', 'loading', 'reading', 'first-token'] as const;
/** See WAIT_STAGES. */
export type WaitStage = (typeof WAIT_STAGES)[number];

/** Each stage's name for people. */
export const STAGE_NAMES: Readonly<Record<WaitStage, string>> = {
  waiting: 'waiting',
  loading: 'loading the model',
  reading: 'reading your prompt',
  'first-token': 'first word',
};

/** The stage each TTFT phase belongs to; every phase in exactly one, so stages sum to TTFT. */
export const PHASE_STAGES: Readonly<Record<TtftPhase, WaitStage>> = {
  inbox: 'waiting',
  route: 'reading',
  slotLoad: 'loading',
  queue: 'waiting',
  requeue: 'waiting',
  lostPrefill: 'reading',
  activation: 'waiting',
  contextLookup: 'reading',
  prefill: 'reading',
  emit: 'first-token',
  unattributed: 'waiting',
};

/** What a phase is within its stage, added after the stage's name; null where the stage says it all. */
export const PHASE_DETAILS: Readonly<Record<TtftPhase, string | null>> = {
  inbox: 'to be picked up',
  route: 'preparing it',
  slotLoad: null,
  queue: 'for a turn',
  requeue: 'again after being paused',
  lostPrefill: 'redone after a pause',
  activation: 'for the model to take it',
  contextLookup: 'finding what is remembered',
  prefill: 'the new words',
  emit: 'picking and sending it',
  unattributed: 'unexplained',
};

/** A stage's name with a detail after it ("waiting · for a turn"), or the stage's name alone. */
export function stagedName(stage: WaitStage, detail: string | null): string {
  return detail === null ? STAGE_NAMES[stage] : `${STAGE_NAMES[stage]} · ${detail}`;
}

/**
 * Each phase's name for people (reports, sentences, the UI): never the identifier. A TTFT
 * phase is its stage's name with its detail, so Expert's parts use Simple's words.
 */
export const PHASE_NAMES: Readonly<Record<E2ePhase, string>> = {
  ...(Object.fromEntries(
    TTFT_PHASES.map((phase) => [phase, stagedName(PHASE_STAGES[phase], PHASE_DETAILS[phase])]),
  ) as Record<TtftPhase, string>),
  decode: 'the rest of the answer',
  transport: 'on its way to the window',
};

/**
 * Plain names for seed 003's seven phases of a request, from sending it to the last word (the
 * identifiers are never printed), in the stages' words wherever a phase is one of them.
 * "Getting ready" is what seed 003 calls the gateway: on a local app there is none, only the
 * app picking the request up and preparing it.
 */
export const SEED_PHASE_NAMES: Readonly<Record<SeedPhase, string>> = {
  network_in: 'sending the request',
  gateway: 'getting ready',
  queue: STAGE_NAMES.waiting,
  prefill: STAGE_NAMES.reading,
  first_decode: STAGE_NAMES['first-token'],
  network_to_first: stagedName('first-token', PHASE_NAMES.transport),
  stream: PHASE_NAMES.decode,
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
