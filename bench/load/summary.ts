import { nearestRankSorted } from '../../src-main/telemetry/report/nearest-rank';
import type { Slo } from '../../src-main/telemetry/report/goodput';
import { partKey } from '../../src-main/service/openai/timings';
import { transportMs } from '../../src-main/telemetry/timeline/derive';
import { TTFT_PARTS } from '../../src-main/telemetry/timeline/parts';
import type { RequestRecord } from './driver';

/** Nearest-rank percentiles of a total (ms), and how many values they rank. */
export interface Percentiles {
  n: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  mean: number | null;
}

/** A phase's numbers: counts, shares, rates, client and server latencies, goodput. */
export interface PhaseSummary {
  numSent: number;
  numOk: number;
  numRejected: number;
  numErrors: number;
  rejectedShare: number;
  windowS: number;
  requestsPerS: number;
  outputTokensPerS: number;
  clientTtftMs: Percentiles;
  serverTtftMs: Percentiles;
  transportMs: Percentiles;
  clientItlMs: Percentiles;
  clientE2eMs: Percentiles;
  /** Means of the server TTFT parts (means decompose; percentiles of parts would not). */
  partMeansMs: Record<string, number | null>;
  cachedTokenShare: number | null;
  goodput: { slo: Slo; numGood: number; goodShare: number; goodPerS: number } | null;
}

/** Percentiles by the nearest-rank rule (each is a value some request really had). */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (q: number) => nearestRankSorted(sorted, q);
  const mean = sorted.length === 0 ? null : sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), p95: at(0.95), p99: at(0.99), mean };
}

/** Client TTFT: send → first content chunk received (the client's clock). */
export const clientTtftOf = (r: RequestRecord): number =>
  r.seen.chunkAts.length > 0 ? r.seen.chunkAts[0]! - r.seen.sentAt : Number.NaN;
/** The server's own TTFT from `timings.ttft_ms`. */
export const serverTtftOf = (r: RequestRecord): number => numberOr(r.seen.timings?.['ttft_ms']);
/** Client − server TTFT (telemetry's transportMs), NaN when either is unknown. */
export const transportOf = (r: RequestRecord): number => {
  const finite = (ms: number) => (Number.isFinite(ms) ? ms : null);
  return transportMs(finite(clientTtftOf(r)), finite(serverTtftOf(r))) ?? Number.NaN;
};
/** Gaps between consecutive content chunks as the client received them. */
export const clientItlsOf = (r: RequestRecord): number[] =>
  r.seen.chunkAts.slice(1).map((at, i) => at - r.seen.chunkAts[i]!);
/** A normal finish: HTTP 200 with stop or length. */
export const isOk = (r: RequestRecord): boolean =>
  r.seen.httpStatus === 200 &&
  r.seen.errorMessage === null &&
  (r.seen.finishReason === 'stop' || r.seen.finishReason === 'length');

function numberOr(value: unknown): number {
  return typeof value === 'number' ? value : Number.NaN;
}

/**
 * Summarises a phase. Window: first send → last answer. Goodput: normal finishes whose client
 * TTFT ≤ slo.ttftMs and own p95 client ITL ≤ slo.itlMs, as a share of every request sent.
 */
export function summarize(records: readonly RequestRecord[], slo: Slo | null): PhaseSummary {
  const ok = records.filter(isOk);
  const numRejected = records.filter((r) => r.seen.httpStatus === 429).length;
  const startAt = Math.min(...records.map((r) => r.seen.sentAt));
  const windowS =
    records.length === 0 ? 0 : (Math.max(...records.map((r) => r.seen.doneAt)) - startAt) / 1000;
  const numOutput = ok.reduce(
    (sum, r) => sum + (r.seen.usage?.completion_tokens ?? r.seen.chunkAts.length),
    0,
  );
  const numPrompt = ok.reduce((sum, r) => sum + (r.seen.usage?.prompt_tokens ?? 0), 0);
  const numCached = ok.reduce((sum, r) => sum + (r.seen.usage?.prompt_tokens_details?.cached_tokens ?? 0), 0);
  const partMeansMs: Record<string, number | null> = {};
  for (const key of [...TTFT_PARTS.map(partKey), 'unattributed_ms'])
    partMeansMs[key] = percentiles(ok.map((r) => numberOr(r.seen.timings?.[key]))).mean;
  return {
    numSent: records.length,
    numOk: ok.length,
    numRejected,
    numErrors: records.length - ok.length - numRejected,
    rejectedShare: records.length === 0 ? 0 : numRejected / records.length,
    windowS,
    requestsPerS: windowS > 0 ? ok.length / windowS : 0,
    outputTokensPerS: windowS > 0 ? numOutput / windowS : 0,
    clientTtftMs: percentiles(ok.map(clientTtftOf)),
    serverTtftMs: percentiles(ok.map(serverTtftOf)),
    transportMs: percentiles(ok.map(transportOf)),
    clientItlMs: percentiles(ok.flatMap(clientItlsOf)),
    clientE2eMs: percentiles(ok.map((r) => r.seen.doneAt - r.seen.sentAt)),
    partMeansMs,
    cachedTokenShare: numPrompt > 0 ? numCached / numPrompt : null,
    goodput: slo ? goodputOf(records, ok, slo, windowS) : null,
  };
}

function goodputOf(
  records: readonly RequestRecord[],
  ok: readonly RequestRecord[],
  slo: Slo,
  windowS: number,
) {
  const numGood = ok.filter(
    (r) => clientTtftOf(r) <= slo.ttftMs && !((percentiles(clientItlsOf(r)).p95 ?? 0) > slo.itlMs),
  ).length;
  return {
    slo,
    numGood,
    goodShare: records.length === 0 ? 0 : numGood / records.length,
    goodPerS: windowS > 0 ? numGood / windowS : 0,
  };
}
