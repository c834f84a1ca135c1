import type { RemoteObservation } from '../observation';
import { fromFirstFrame, isFirstFrameTimings } from './first-frame';
import { fromLlamaCpp, isLlamaCppTimings } from './llama-cpp';
import { fromOllama } from './ollama';
import type { ServerReport } from './server-report';
import { emptyReport } from './server-report';
import { fromVllmRequest, isVllmRequestMetrics } from './vllm-request';

export type { ServerReport } from './server-report';
export { emptyReport } from './server-report';
export { fromFirstFrame, fromLlamaCpp, fromOllama, fromVllmRequest };

/**
 * The server's report of one answer, read from whatever timing fields it sent: recognized by
 * their shape, so an engine set to `auto` or `openai` is still read when it reports. Usage
 * fills the token counts a timing object left out.
 */
export function readServerReport(seen: RemoteObservation): ServerReport {
  const report = seen.ollamaFinal
    ? fromOllama(seen.ollamaFinal)
    : seen.timings && isFirstFrameTimings(seen.timings)
      ? fromFirstFrame(seen.timings)
      : seen.timings && isLlamaCppTimings(seen.timings)
        ? fromLlamaCpp(seen.timings)
        : seen.metrics && isVllmRequestMetrics(seen.metrics)
          ? fromVllmRequest(seen.metrics)
          : emptyReport();
  if (seen.usage) {
    report.numPromptTokens ??= seen.usage.promptTokens;
    report.numCachedTokens ??= seen.usage.cachedTokens;
    report.numOutputTokens ??= seen.usage.completionTokens;
  }
  return report;
}
