import type { FinishReason } from '../timeline/schema';
import { FINISH_REASONS } from '../timeline/schema';
import type { ReportColumns } from './columns';
import { finishCode } from './columns';
import type { ObservationWindow } from './littles-law';

/** User-set objectives: server TTFT ≤ ttftMs and the request's own p95 inter-token gap ≤ itlMs. */
export interface Slo {
  ttftMs: number;
  itlMs: number;
}

/**
 * Raw throughput over the requests that finished in the window: requests/s, output tokens/s
 * (a request's tokens count when it finishes) and the share of each finish reason.
 */
export interface Throughput {
  windowMs: number;
  numFinished: number;
  requestsPerS: number;
  outputTokensPerS: number;
  finishShares: Record<FinishReason, number>;
  /** (error + rejected) ÷ finished. */
  failedOrRejectedShare: number;
}

/**
 * Goodput: requests that finished normally (stop or length) with server TTFT ≤ slo.ttftMs and
 * their own p95 ITL ≤ slo.itlMs (met trivially with fewer than two tokens). Shares are of the
 * requests finished in the window; `missedTtftShare` is of those that produced a first token.
 */
export interface Goodput {
  slo: Slo;
  numGood: number;
  goodShare: number | null;
  goodPerS: number;
  missedTtftShare: number | null;
}

const STOP = finishCode('stop');
const LENGTH = finishCode('length');

/** Throughput and, when an SLO is given, goodput, in one pass over the finished requests. */
export function throughputOf(
  columns: ReportColumns,
  window: ObservationWindow,
  slo: Slo | null,
): { throughput: Throughput; goodput: Goodput | null } {
  const v = columns.values;
  const finishCounts = new Uint32Array(FINISH_REASONS.length);
  let numFinished = 0;
  let numTokens = 0;
  let numGood = 0;
  let numWithTtft = 0;
  let numMissedTtft = 0;
  for (let r = 0; r < columns.numRequests; r++) {
    const finishedAt = v.finishedAt[r]!;
    if (finishedAt < window.startAt || finishedAt > window.endAt) continue;
    numFinished++;
    numTokens += v.numOutputTokens[r]!;
    const code = v.finishCode[r]!;
    finishCounts[code]!++;
    const ttft = v.ttftMs[r]!;
    if (!slo || Number.isNaN(ttft)) continue;
    numWithTtft++;
    if (ttft > slo.ttftMs) numMissedTtft++;
    else if ((code === STOP || code === LENGTH) && !(v.ownItlP95Ms[r]! > slo.itlMs)) numGood++;
  }
  const windowS = (window.endAt - window.startAt) / 1000;
  const finishShares = {} as Record<FinishReason, number>;
  FINISH_REASONS.forEach(
    (reason, i) => (finishShares[reason] = numFinished === 0 ? 0 : finishCounts[i]! / numFinished),
  );
  const throughput: Throughput = {
    windowMs: window.endAt - window.startAt,
    numFinished,
    requestsPerS: numFinished / windowS,
    outputTokensPerS: numTokens / windowS,
    finishShares,
    failedOrRejectedShare: finishShares.error + finishShares.rejected,
  };
  if (!slo) return { throughput, goodput: null };
  const goodput: Goodput = {
    slo,
    numGood,
    goodShare: numFinished === 0 ? null : numGood / numFinished,
    goodPerS: numGood / windowS,
    missedTtftShare: numWithTtft === 0 ? null : numMissedTtft / numWithTtft,
  };
  return { throughput, goodput };
}
