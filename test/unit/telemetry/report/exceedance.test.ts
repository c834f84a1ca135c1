import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { timeline } from './timeline-fixture';

function population() {
  const fast = Array.from({ length: 38 }, (_, i) =>
    timeline({
      parts: { queue: 5 + (i % 5), prefill: 20 },
      numPromptTokens: 100,
      numCachedTokens: 60,
      modelId: i % 2 ? 'a' : 'b',
    }),
  );
  const slow = Array.from({ length: 2 }, () =>
    timeline({
      parts: { slotLoad: 400, queue: 5, prefill: 20 },
      isColdSlot: true,
      numPromptTokens: 5_000,
      modelId: 'c',
    }),
  );
  return [...fast, ...slow];
}

describe('exceedance set', () => {
  it('splits at p95 TTFT and compares part means of the slow requests with the rest', () => {
    const report = buildReport(population());
    const ex = report.exceedance!;
    expect(ex.thresholdMs).toBe(report.ttft.p95Ms);
    expect(ex.slow.numRequests).toBe(2);
    expect(ex.rest.numRequests).toBe(38);
    expect(ex.slow.partMeansMs.slotLoad).toBe(400);
    expect(ex.rest.partMeansMs.slotLoad).toBe(0);
  });

  it('says what the slow ones share: where the extra time went, cold slots, long prompts, no cache, one model', () => {
    const ex = buildReport(population()).exceedance!;
    expect(ex.slow.coldSlotShare).toBe(1);
    expect(ex.rest.coldSlotShare).toBe(0);
    expect(ex.slow.cachedTokenShare).toBe(0);
    expect(ex.rest.cachedTokenShare).toBeCloseTo(0.6, 12);
    expect(ex.slow.promptBandShares).toEqual({ '2048–8191 tokens': 1 });
    expect(ex.sentence).toMatch(/extra time is loading the model/);
    expect(ex.sentence).toMatch(/100% found their slot cold vs 0%/);
    expect(ex.sentence).toMatch(/2048–8191 tokens/);
    expect(ex.sentence).toMatch(/cache served 0% .* vs 60%/);
    expect(ex.sentence).toMatch(/ran on c/);
  });

  it('says no request is above p95 when the top requests tie at the threshold', () => {
    const same = Array.from({ length: 30 }, () => timeline({ parts: { prefill: 10 } }));
    const ex = buildReport(same).exceedance!;
    expect(ex.slow.numRequests).toBe(0);
    expect(ex.sentence).toMatch(/No request is above p95/);
  });
});
