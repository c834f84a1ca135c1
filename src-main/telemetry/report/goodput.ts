import type { FinishReason } from '../timeline/schema';
import { FINISH_REASONS } from '../timeline/schema';
import type { ReportColumns } from './columns';
import { finishCode } from './columns';
import type { ObservationWindow } from './littles-law';
import type { Boundary } from './seed-phases';

/** User-set objectives: TTFT ≤ ttftMs and the request's own inter-token gap ≤ itlMs, at a named boundary. */
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
 * Goodput at the named boundary: requests that finished normally (stop or length) with TTFT ≤
 * slo.ttftMs and their own inter-token gap ≤ slo.itlMs (met trivially with fewer than two
 * tokens). At the server boundary the gap is the request's own p95; at the client boundary it
 * is its mean client gap, stream ÷ (tokens − 1), because the client's per-token stamps are not
 * kept, or the server's own p95 when the client reported no E2E (its chunks follow the
 * server's flushes). A normal finish without a TTFT at the boundary is `unmeasured`, never
 * good. Shares are of the requests finished in the window; `missedTtftShare` is of those with a
 * TTFT there.
 */
export interface Goodput {
  boundary: Boundary;
  slo: Slo;
  numGood: number;
  numUnmeasured: number;
  goodShare: number | null;
  goodPerS: number;
  missedTtftShare: number | null;
}

const STOP = finishCode('stop');
const LENGTH = finishCode('length');

/** A request's TTFT and own inter-token gap at the boundary (NaN where it has none). */
function figuresAt(columns: ReportColumns, boundary: Boundary, r: number): { ttft: number; itl: number } {
  const v = columns.values;
  if (boundary === 'server') return { ttft: v.ttftMs[r]!, itl: v.ownItlP95Ms[r]! };
  const ttft = v.clientTtftMs[r]!;
  const numTokens = v.numOutputTokens[r]!;
  const clientE2e = v.clientE2eMs[r]!;
  const itl =
    Number.isNaN(clientE2e) || numTokens < 2 ? v.ownItlP95Ms[r]! : (clientE2e - ttft) / (numTokens - 1);
  return { ttft, itl };
}

/**
 * Throughput and, when an SLO is given, goodput at `boundary`, in one pass over the finished
 * requests.
 */
export function throughputOf(
  columns: ReportColumns,
  window: ObservationWindow,
  slo: Slo | null,
  boundary: Boundary = 'server',
): { throughput: Throughput; goodput: Goodput | null } {
  const v = columns.values;
  const finishCounts = new Uint32Array(FINISH_REASONS.length);
  let numFinished = 0;
  let numTokens = 0;
  let numGood = 0;
  let numUnmeasured = 0;
  let numWithTtft = 0;
  let numMissedTtft = 0;
  for (let r = 0; r < columns.numRequests; r++) {
    const finishedAt = v.finishedAt[r]!;
    if (finishedAt < window.startAt || finishedAt > window.endAt) continue;
    numFinished++;
    numTokens += v.numOutputTokens[r]!;
    const code = v.finishCode[r]!;
    finishCounts[code]!++;
    if (!slo) continue;
    const isNormal = code === STOP || code === LENGTH;
    const { ttft, itl } = figuresAt(columns, boundary, r);
    if (Number.isNaN(ttft)) {
      if (isNormal) numUnmeasured++;
      continue;
    }
    numWithTtft++;
    if (ttft > slo.ttftMs) numMissedTtft++;
    else if (isNormal && !(itl > slo.itlMs)) numGood++;
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
    boundary,
    slo,
    numGood,
    numUnmeasured,
    goodShare: numFinished === 0 ? null : numGood / numFinished,
    goodPerS: numGood / windowS,
    missedTtftShare: numWithTtft === 0 ? null : numMissedTtft / numWithTtft,
  };
  return { throughput, goodput };
}
