import type { ServerReport } from './server-report';
import { countOf, emptyReport, msOf } from './server-report';

/** True for llama.cpp server's `timings` (prompt and predicted times, no TTFT of its own). */
export function isLlamaCppTimings(timings: Record<string, unknown>): boolean {
  return 'prompt_ms' in timings && 'predicted_ms' in timings && !('ttft_ms' in timings);
}

/**
 * llama.cpp server's `timings` on the last chunk: `prompt_ms` is the prompt's forward pass
 * over the `prompt_n` tokens its cache did not hold (`cache_n`), ending when the first token's
 * logits exist: our `prefill`. `predicted_ms` runs from there over `predicted_n` tokens: decode.
 * It reports no queue, tokenizing or sampling time: those stay unattributed.
 */
export function fromLlamaCpp(timings: Record<string, unknown>): ServerReport {
  const report = emptyReport();
  report.source = 'llama.cpp-timings';
  const promptMs = msOf(timings['prompt_ms']);
  if (promptMs !== null) report.parts.prefill = promptMs;
  report.decodeMs = msOf(timings['predicted_ms']);
  const cached = countOf(timings['cache_n']);
  const uncached = countOf(timings['prompt_n']);
  report.numCachedTokens = cached;
  report.numPromptTokens = uncached === null ? null : uncached + (cached ?? 0);
  report.numOutputTokens = countOf(timings['predicted_n']);
  report.fields = ['prompt_ms', 'predicted_ms', 'prompt_n', 'predicted_n', 'cache_n'].filter(
    (f) => f in timings,
  );
  return report;
}
