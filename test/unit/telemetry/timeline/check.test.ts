import { describe, expect, it } from 'vitest';
import { checkRecorded, checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { deriveParts } from '../../../../src-main/telemetry/timeline/derive';
import { timeline } from '../report/timeline-fixture';

describe('timeline checks', () => {
  it('never clamps a part: stamps out of order derive a negative part, and the check refuses it', () => {
    const transitions = [
      { state: 'inbox' as const, at: 0 },
      { state: 'route' as const, at: 5, endAt: 3 },
      { state: 'prefill' as const, at: 6 },
    ];
    const derived = deriveParts(0, transitions, 7, 8);
    expect(derived.parts.route).toBe(-2);
    const t = { ...timeline({ arrivedAt: 0 }), transitions, ...derived };
    expect(() => checkRecorded(t)).toThrow(/route ended at 3, before it began at 5/);
    expect(() => checkRecorded({ ...timeline(), parts: { ...timeline().parts, emit: -1 } })).toThrow(
      /part emit is -1 ms/,
    );
  });

  it('refuses parts that add up to more than TTFT (they overlap), whoever built the timeline', () => {
    const t = timeline({ parts: { prefill: 20 } });
    expect(() => checkRecorded({ ...t, unattributedMs: -3 })).toThrow(
      /unattributed is -3 ms: the parts overlap/,
    );
  });

  it("checks a record read from outside against its own stamps: totals and the parts' sum are independent fields there", () => {
    const t = timeline({ parts: { queue: 4, prefill: 20 } });
    expect(checkTimeline(t)).toBe(t);
    expect(() => checkTimeline({ ...t, parts: { ...t.parts, prefill: 21 } })).toThrow(/parts sum to .* not/);
    expect(() => checkTimeline({ ...t, e2eMs: t.e2eMs + 1 })).toThrow(/e2e is not finish − arrival/);
    expect(() => checkTimeline({ ...t, ttftMs: t.ttftMs! - 1 })).toThrow(/ttft is not first token − arrival/);
  });
});
