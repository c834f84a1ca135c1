import { PART_COLUMN_NAMES } from '../../../telemetry/timeline/columns';
import { TTFT_PARTS } from '../../../telemetry/timeline/parts';
import type { ServerReport } from './server-report';
import { countOf, emptyReport, msOf } from './server-report';

/** True for First Frame's `timings` (it alone sends `ttft_ms` beside the parts). */
export function isFirstFrameTimings(timings: Record<string, unknown>): boolean {
  return 'ttft_ms' in timings && 'unattributed_ms' in timings;
}

/**
 * First Frame's `timings`: server TTFT and every part of it (`inbox_ms` … `emit_ms`,
 * `unattributed_ms`, summing to `ttft_ms`), `decode_ms`, and the llama.cpp-style counters.
 */
export function fromFirstFrame(timings: Record<string, unknown>): ServerReport {
  const report = emptyReport();
  report.source = 'first-frame-timings';
  for (const part of TTFT_PARTS) {
    const ms = msOf(timings[PART_COLUMN_NAMES[part]]);
    if (ms !== null) {
      report.parts[part] = ms;
      report.fields.push(PART_COLUMN_NAMES[part]);
    }
  }
  report.ttftMs = msOf(timings['ttft_ms']);
  report.unattributedMs = msOf(timings['unattributed_ms']);
  report.decodeMs = msOf(timings['decode_ms']);
  const cached = countOf(timings['cache_n']);
  const uncached = countOf(timings['prompt_n']);
  report.numCachedTokens = cached;
  report.numPromptTokens = cached !== null && uncached !== null ? cached + uncached : null;
  report.numOutputTokens = countOf(timings['predicted_n']);
  report.fields.push('ttft_ms', 'unattributed_ms', 'decode_ms', 'cache_n', 'prompt_n', 'predicted_n');
  return report;
}
