import { REMOTE_LIMITS } from '../../limits';
import { readBounded } from './bounded-body';
import { describeFetchError, describeHttpError } from './fetch-errors';
import type { PromHistogram, PromSample } from './prometheus';
import { histogramOf, parsePrometheus } from './prometheus';

/** vLLM's request histograms (seconds) and the phase each one measures. */
export const VLLM_HISTOGRAMS = [
  { metric: 'vllm:request_queue_time_seconds', phase: 'queue' },
  { metric: 'vllm:request_prefill_time_seconds', phase: 'prefill' },
  { metric: 'vllm:request_decode_time_seconds', phase: 'decode' },
  { metric: 'vllm:time_to_first_token_seconds', phase: 'ttft' },
  { metric: 'vllm:request_inference_time_seconds', phase: 'inference' },
  { metric: 'vllm:e2e_request_latency_seconds', phase: 'e2e' },
] as const;
/** A run-level server phase vLLM measures. */
export type VllmPhase = (typeof VLLM_HISTOGRAMS)[number]['phase'];

/** One phase over the requests a server finished between two scrapes. */
export interface ServerPhaseDelta {
  phase: VllmPhase;
  metric: string;
  numRequests: number;
  meanMs: number | null;
  /** The bucket holding the nearest-rank p50 / p95 (ms): the value lies in (loMs, hiMs]. */
  p50: { loMs: number; hiMs: number } | null;
  p95: { loMs: number; hiMs: number } | null;
}

/** Run-level server phases from two scrapes of `/metrics`, with what they cover. */
export interface RunServerPhases {
  source: 'vllm-metrics';
  modelName: string | null;
  phases: ServerPhaseDelta[];
  /** Stated beside the numbers: the histograms count every request the server finished. */
  note: string;
}

/** The URL of a server's Prometheus metrics: its origin's `/metrics` (vLLM serves it there). */
export function metricsUrlOf(baseUrl: string): string {
  return `${new URL(baseUrl).origin}/metrics`;
}

/** Fetches and parses `/metrics`; an Error says why it could not (the run goes on without). */
export async function scrapeMetrics(
  baseUrl: string,
  headers: Record<string, string>,
  timeoutMs = 5_000,
): Promise<PromSample[] | Error> {
  const url = metricsUrlOf(baseUrl);
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    const maxBytes = response.ok ? REMOTE_LIMITS.maxListBodyBytes : REMOTE_LIMITS.maxErrorBodyBytes;
    const { text, isTruncated } = await readBounded(response, maxBytes);
    if (!response.ok) return new Error(`${url}: ${describeHttpError(response.status, text)}`);
    if (isTruncated) return new Error(`${url}: more than ${maxBytes / 1024 / 1024} MiB of metrics, not read`);
    return parsePrometheus(text);
  } catch (error) {
    return new Error(describeFetchError(error, url));
  }
}

/**
 * The phases of the requests finished between `before` and `after` (counter deltas), for one
 * `model_name` when given. A histogram the server does not expose is left out, not zeroed.
 */
export function vllmPhasesBetween(
  before: readonly PromSample[],
  after: readonly PromSample[],
  modelName: string | null,
): RunServerPhases {
  const match: Record<string, string> = modelName ? { model_name: modelName } : {};
  const phases: ServerPhaseDelta[] = [];
  for (const { metric, phase } of VLLM_HISTOGRAMS) {
    const end = histogramOf(after, metric, match);
    if (!end) continue;
    const delta = minus(end, histogramOf(before, metric, match));
    phases.push({
      phase,
      metric,
      numRequests: delta.count,
      meanMs: delta.count > 0 ? (delta.sum / delta.count) * 1000 : null,
      p50: bucketOfRank(delta, 0.5),
      p95: bucketOfRank(delta, 0.95),
    });
  }
  return {
    source: 'vllm-metrics',
    modelName,
    phases,
    note: 'vLLM histograms count every request the server finished between the scrapes (this run and any other client); percentiles are known only to the bucket that holds them',
  };
}

function minus(after: PromHistogram, before: PromHistogram | null): PromHistogram {
  const buckets = new Map<number, number>();
  for (const [le, count] of after.buckets) buckets.set(le, count - (before?.buckets.get(le) ?? 0));
  return { buckets, count: after.count - (before?.count ?? 0), sum: after.sum - (before?.sum ?? 0) };
}

/** The cumulative bucket holding nearest rank ⌈q·n⌉, as (previous edge, its edge] in ms. */
function bucketOfRank(h: PromHistogram, q: number): { loMs: number; hiMs: number } | null {
  if (h.count <= 0) return null;
  const rank = Math.max(1, Math.ceil(q * h.count));
  const edges = [...h.buckets.keys()].sort((a, b) => a - b);
  let lo = 0;
  for (const le of edges) {
    if (h.buckets.get(le)! >= rank) return { loMs: lo * 1000, hiMs: le * 1000 };
    lo = le;
  }
  return null;
}
