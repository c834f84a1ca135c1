import { describe, expect, it } from 'vitest';
import { PrefillRate } from '../../../../src-main/runtime/forecast/prefill-rate';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { timeline } from '../../telemetry/report/timeline-fixture';

/** A finished request with `queueMs` waited behind `numAhead` others. */
function served(prefillMs: number, queueMs: number, numAhead: number): Timeline {
  const t = timeline({
    parts: { route: 1, queue: queueMs, prefill: prefillMs, emit: 0.5 },
    numPromptTokens: 100,
  });
  return {
    ...t,
    diagnosis: { pageMiss: null, slotLoad: null, queuedBehind: [], numQueuedBehind: numAhead },
  };
}

describe('the send forecast learns the waits it can know', () => {
  it('the step in flight: the median wait of requests that had nobody ahead', () => {
    const rate = new PrefillRate();
    for (const queueMs of [2, 4, 30]) rate.observe(served(50, queueMs, 0));
    const estimate = rate.estimate('model-a')!;
    expect(estimate.stepWaitMs).toBe(4);
    expect(estimate.msPerAhead).toBeNull();
    // The overhead leaves the queue out: it is added back only when something runs.
    expect(estimate.overheadMs).toBeCloseTo(1.5, 9);
  });

  it('the queue ahead: wait per request ahead, from requests that queued behind others', () => {
    const rate = new PrefillRate();
    rate.observe(served(50, 3, 0));
    rate.observe(served(50, 120, 2));
    rate.observe(served(50, 60, 1));
    expect(rate.estimate('model-a')!.msPerAhead).toBeCloseTo(180 / 3, 9);
  });

  it('the disk: ms per byte over recent reads of remembered context, kept out of the queue wait', () => {
    const rate = new PrefillRate();
    expect(rate.diskReadMsPerByte()).toBeNull();
    const withRead = (readMs: number, numBytes: number): Timeline => {
      const t = served(50, 2 + readMs, 0);
      return {
        ...t,
        diagnosis: { ...t.diagnosis!, diskRead: { numPages: 4, numBytes, readMs, refused: null } },
      };
    };
    rate.observe(withRead(10, 1_000_000));
    rate.observe(withRead(30, 1_000_000));
    expect(rate.diskReadMsPerByte()).toBeCloseTo(40 / 2_000_000, 12);
    expect(rate.estimate('model-a')!.stepWaitMs).toBe(2);
  });
});
