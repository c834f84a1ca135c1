import { describe, expect, it } from 'vitest';
import { runControls } from '../../../../src-main/telemetry/trace/controls';

describe('built-in profiler controls', () => {
  it('finds queue dominant for TTFT and decode for end to end in the bursty positive control', async () => {
    const result = await runControls();
    expect(result.positive.report.dominantTtftPhase?.phase).toBe('queue');
    expect(result.positive.report.dominantE2ePhase?.phase).toBe('decode');
    expect(result.positive.isPassed).toBe(true);
  });

  it('rejects the negative control (prefill ending before it starts) instead of reporting it', async () => {
    const result = await runControls();
    expect(result.negative.isPassed).toBe(true);
    expect(result.negative.reason).toMatch(/non-monotonic stamps: prefill_end_ms/);
    expect(result.isPassed).toBe(true);
  });
});
