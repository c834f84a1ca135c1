import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { timeline } from './timeline-fixture';

/** One request every `gapMs`, each in the system `e2eMs` (all prefill). */
function steady(count: number, gapMs: number, e2eMs: number) {
  return Array.from({ length: count }, (_, i) =>
    timeline({ arrivedAt: 1_000 + i * gapMs, parts: { prefill: e2eMs } }),
  );
}

describe("Little's law", () => {
  it('holds exactly over the full span of a complete set: L = λW', () => {
    const law = buildReport(steady(100, 100, 250)).littlesLaw!;
    expect(law.isFullSpan).toBe(true);
    expect(law.windowMs).toBe(99 * 100 + 250);
    expect(law.meanInSystem).toBeCloseTo(law.predictedInSystem, 9);
    expect(law.meanTimeInSystemMs).toBe(250);
    expect(law.isConsistent).toBe(true);
  });

  it('agrees within tolerance on a sub-window of a steady stream (about 2.5 in the system)', () => {
    const law = buildReport(steady(400, 100, 250), {
      window: { startAt: 10_000, endAt: 30_000 },
    }).littlesLaw!;
    expect(law.isFullSpan).toBe(false);
    expect(law.meanInSystem).toBeCloseTo(2.5, 1);
    expect(law.completionsPerS).toBeCloseTo(10, 1);
    expect(law.relativeGap).toBeLessThan(0.1);
    expect(law.isConsistent).toBe(true);
  });

  it('flags a window that cuts through long requests (not steady: they straddle its edge)', () => {
    const longOnes = Array.from({ length: 10 }, (_, i) =>
      timeline({ arrivedAt: 1_000 + i, parts: { prefill: 10_000 } }),
    );
    const law = buildReport(longOnes, { window: { startAt: 1_000, endAt: 6_000 } }).littlesLaw!;
    expect(law.numCompleted).toBe(0);
    expect(law.meanInSystem).toBeGreaterThan(9);
    expect(law.isConsistent).toBe(false);
  });

  it('uses the stated tolerance', () => {
    const law = buildReport(steady(400, 100, 250), {
      window: { startAt: 10_000, endAt: 30_000 },
      littleTolerance: 0,
    }).littlesLaw!;
    expect(law.tolerance).toBe(0);
    expect(law.isConsistent).toBe(law.relativeGap === 0);
  });
});
