import type { Timeline } from '../timeline/schema';
import { buildReport } from './build-report';
import type { Distribution } from './distribution';
import type { Slo } from './goodput';
import type { TtftPhase } from './remedies';

/**
 * One arm of an experiment as seed 001 tabulates it: TTFT parts as means that sum to the mean
 * TTFT (with their shares), totals as nearest-rank percentiles, the queue's share, preemptions
 * and the prefill work they threw away, and the arm's rates. Server boundary throughout, plus
 * client TTFT where the client reported it.
 */
export interface ArmSummary {
  numRequests: number;
  numCompleted: number;
  meanTtftMs: number | null;
  partMeansMs: Record<TtftPhase, number | null>;
  partShares: Record<TtftPhase, number | null>;
  ttft: Distribution;
  clientTtft: Distribution | null;
  e2e: Distribution;
  itl: Distribution;
  /** Mean of first flush → finish over requests with a first token. */
  decodeMeanMs: number | null;
  /** (queue + requeue) ÷ mean TTFT: the wait for a seat. */
  queueShare: number | null;
  numPreemptions: number;
  /** Prefill (and its activation) thrown away by preemptions before the first token, summed. */
  wastedPrefillMs: number;
  /** First arrival → last finish (summed over rounds when the arm ran in several). */
  windowMs: number;
  requestsPerS: number | null;
  outputTokensPerS: number | null;
  failedOrRejectedShare: number | null;
  goodShare: number | null;
}

/**
 * The arm's summary over its timelines (one report pass plus one pass for preemption counts).
 * `busyMs`, when given, is the time the arm was actually loaded (its rounds' spans summed), so
 * its rates leave out the pauses between rounds.
 */
export function armSummary(
  timelines: readonly Timeline[],
  slo: Slo | null = null,
  busyMs: number | null = null,
): ArmSummary {
  const report = buildReport(timelines, { slo, boundary: 'server' });
  const { parts } = report;
  const queueMs = (parts.meansMs.queue ?? 0) + (parts.meansMs.requeue ?? 0);
  let numPreemptions = 0;
  let wastedPrefillMs = 0;
  for (const t of timelines) {
    numPreemptions += t.numPreemptions;
    wastedPrefillMs += t.parts.lostPrefill;
  }
  const windowMs = busyMs ?? report.throughput?.windowMs ?? 0;
  const perS = (count: number) => (windowMs > 0 ? (count * 1000) / windowMs : null);
  let numOutputTokens = 0;
  for (const t of timelines) numOutputTokens += t.numOutputTokens;
  return {
    numRequests: report.numRequests,
    numCompleted: report.e2e.count,
    meanTtftMs: parts.meanTtftMs,
    partMeansMs: parts.meansMs,
    partShares: parts.shares,
    ttft: report.ttft,
    clientTtft: report.client ? report.client.ttft : null,
    e2e: report.e2e,
    itl: report.itl,
    decodeMeanMs: report.e2ePhases.meansMs.decode,
    queueShare: parts.meanTtftMs ? queueMs / parts.meanTtftMs : null,
    numPreemptions,
    wastedPrefillMs,
    windowMs,
    requestsPerS: perS(timelines.length),
    outputTokensPerS: perS(numOutputTokens),
    failedOrRejectedShare: report.throughput?.failedOrRejectedShare ?? null,
    goodShare: report.goodput?.goodShare ?? null,
  };
}
