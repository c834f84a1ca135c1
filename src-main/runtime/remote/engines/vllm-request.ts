import type { ServerReport } from './server-report';
import { emptyReport, msOf } from './server-report';

/** True for vLLM's per-request `metrics` (a server started with --enable-per-request-metrics). */
export function isVllmRequestMetrics(metrics: Record<string, unknown>): boolean {
  return 'time_to_first_token_ms' in metrics || 'queue_time_ms' in metrics;
}

/**
 * vLLM's per-request `metrics`: `queue_time_ms` waits for the scheduler (our `queue`);
 * `time_to_first_token_ms` runs from scheduling to the first token (prefill and the first
 * step: our `prefill`, which here includes sampling it); `generation_time_ms` is decode.
 * Tokenizing and the HTTP layer are not reported: unattributed.
 */
export function fromVllmRequest(metrics: Record<string, unknown>): ServerReport {
  const report = emptyReport();
  report.source = 'vllm-request-metrics';
  const queueMs = msOf(metrics['queue_time_ms']);
  const scheduledToFirstMs = msOf(metrics['time_to_first_token_ms']);
  if (queueMs !== null) report.parts.queue = queueMs;
  if (scheduledToFirstMs !== null) report.parts.prefill = scheduledToFirstMs;
  report.decodeMs = msOf(metrics['generation_time_ms']);
  report.fields = ['queue_time_ms', 'time_to_first_token_ms', 'generation_time_ms'].filter(
    (f) => f in metrics,
  );
  return report;
}
