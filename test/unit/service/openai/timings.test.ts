import { describe, expect, it } from 'vitest';
import { openAiFinishReason } from '../../../../src-main/service/openai/responses';
import { partKey, timingsOf } from '../../../../src-main/service/openai/timings';
import { syntheticTimelines } from '../../../../src-main/telemetry/synthetic/workload';
import { TTFT_PARTS } from '../../../../src-main/telemetry/timeline/parts';

describe('timings and finish reasons', () => {
  it('names one snake_case *_ms field per TTFT part', () => {
    expect(TTFT_PARTS.map(partKey)).toEqual([
      'inbox_ms',
      'route_ms',
      'slot_load_ms',
      'queue_ms',
      'requeue_ms',
      'lost_prefill_ms',
      'activation_ms',
      'context_lookup_ms',
      'prefill_ms',
      'emit_ms',
    ]);
  });

  it('keeps parts + unattributed = ttft_ms within rounding on a varied workload', () => {
    for (const timeline of syntheticTimelines(300, { seed: 5 })) {
      const timings = timingsOf(timeline);
      if (timings.ttft_ms === null) {
        expect(timeline.ttftMs).toBeNull();
        continue;
      }
      const sum = [...TTFT_PARTS.map(partKey), 'unattributed_ms' as const].reduce(
        (s, key) => s + (timings[key] as number),
        0,
      );
      expect(Math.abs(sum - timings.ttft_ms)).toBeLessThanOrEqual(0.0005 * 12);
      expect(timings.predicted_n).toBe(timeline.numOutputTokens);
      expect(timings.cache_n + timings.prompt_n).toBe(timeline.numPromptTokens);
    }
  });

  it('maps finish reasons: a deadline cut keeps its own name (not length); the rest are errors', () => {
    expect(
      ['stop', 'length', 'deadline', 'cancelled', 'rejected', 'error'].map((r) =>
        openAiFinishReason(r as never),
      ),
    ).toEqual(['stop', 'length', 'deadline', null, null, null]);
  });
});
