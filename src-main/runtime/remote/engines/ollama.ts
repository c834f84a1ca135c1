import type { ServerReport } from './server-report';
import { countOf, emptyReport, msOf } from './server-report';

const NS_PER_MS = 1e6;
const msFromNs = (value: unknown): number | null => {
  const ns = msOf(value);
  return ns === null ? null : ns / NS_PER_MS;
};

/**
 * Ollama's native final event (ns): `load_duration` loads the model (our `slotLoad`, 0 when
 * it was resident), `prompt_eval_duration` evaluates the prompt (our `prefill`),
 * `eval_duration` generates `eval_count` tokens (decode). `total_duration` minus those three
 * is server time it does not break down (templating, tokenizing, waiting): it stays
 * unattributed, as does everything outside the server.
 */
export function fromOllama(final: Record<string, unknown>): ServerReport {
  const report = emptyReport();
  report.source = 'ollama-durations';
  const loadMs = msFromNs(final['load_duration']);
  const promptMs = msFromNs(final['prompt_eval_duration']);
  if (loadMs !== null) report.parts.slotLoad = loadMs;
  if (promptMs !== null) report.parts.prefill = promptMs;
  report.decodeMs = msFromNs(final['eval_duration']);
  report.numPromptTokens = countOf(final['prompt_eval_count']);
  report.numOutputTokens = countOf(final['eval_count']);
  report.fields = [
    'load_duration',
    'prompt_eval_duration',
    'eval_duration',
    'prompt_eval_count',
    'eval_count',
  ].filter((f) => f in final);
  return report;
}
