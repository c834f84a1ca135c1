import { describe, expect, it } from 'vitest';
import { median } from '../../../bench/first-frame/decode';
import { caseJson, seedPhasesOf } from '../../../bench/first-frame/summary';
import { timeline } from '../telemetry/report/timeline-fixture';

describe('first-frame bench: seed 000 phase names', () => {
  it('splits emit where the first chunk reached the sink, and the seed phases sum to TTFT', () => {
    const t = timeline({
      arrivedAt: 1_000,
      parts: { inbox: 1, route: 2, queue: 3, activation: 4, contextLookup: 5, prefill: 20, emit: 6 },
    });
    // emit runs 1,035 → 1,041; the sink got the first chunk at 1,039.5.
    const phases = seedPhasesOf({ timeline: t, firstChunkHandedAt: 1_039.5, floorPrefillMs: 0 });
    expect(phases).toEqual({
      route: 3,
      slot_load: 0,
      queue: 3,
      slot_activation: 4,
      context_lookup: 5,
      prefill: 20,
      decode_first_token: 4.5,
      first_chunk_flush: 1.5,
      unattributed: 0,
    });
    const sum = Object.values(phases).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(t.ttftMs!, 9);
  });

  it('gives each part its median over runs beside its mean, so one run queued long moves the mean only', () => {
    const runs = [1, 2, 40].map((queue) => {
      const t = timeline({ parts: { inbox: 1, route: 2, queue, activation: 1, prefill: 10, emit: 1 } });
      return { timeline: t, firstChunkHandedAt: t.firstTokenAt!, floorPrefillMs: 10 };
    });
    const json = caseJson({ name: 'case', isSlotHit: true, isPageHit: true, runs });
    expect(json.parts_ms['queue']).toBeCloseTo(43 / 3, 9);
    expect(json.parts_median_ms['queue']).toBe(2);
    expect(json.parts_median_ms['prefill']).toBe(10);
  });

  it('a median over runs is NaN when one run measured nothing (no first token), so no target can pass on it', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([3, Number.NaN, 2])).toBeNaN();
    expect(median([])).toBeNaN();
  });
});
