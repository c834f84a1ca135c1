import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { TTFT_PHASES } from '../../../../src-main/telemetry/report/phases';
import { nonFiniteNumbers, timeline } from './timeline-fixture';

describe('buildReport', () => {
  it('reports nearest-rank percentiles of TTFT, pooled ITL and E2E', () => {
    const timelines = [10, 20, 30, 40].map((prefill, i) =>
      timeline({ parts: { prefill }, gapsMs: [i + 1, 10 * (i + 1)] }),
    );
    const report = buildReport(timelines);
    expect(report.ttft).toMatchObject({ count: 4, p50Ms: 20, p90Ms: 40, p95Ms: 40, meanMs: 25, maxMs: 40 });
    // Pooled: all eight gaps are one population.
    expect(report.itl).toMatchObject({ count: 8, p50Ms: 4, p95Ms: 40, maxMs: 40 });
    expect(report.e2e.p50Ms).toBe(20 + 2 + 20);
  });

  it('gives part means that, with unattributed, sum to the mean TTFT, and shares of it', () => {
    const timelines = [
      timeline({ parts: { inbox: 2, queue: 10, prefill: 30, emit: 1 } }),
      timeline({ parts: { inbox: 4, queue: 50, prefill: 30, emit: 1 } }),
    ];
    const report = buildReport(timelines);
    expect(report.parts.meansMs.queue).toBe(30);
    expect(report.parts.meansMs.prefill).toBe(30);
    expect(report.parts.meanTtftMs).toBe(64);
    const sum = TTFT_PHASES.reduce((s, p) => s + (report.parts.meansMs[p] ?? 0), 0);
    expect(sum).toBeCloseTo(report.parts.meanTtftMs!, 9);
    expect(report.parts.shares.queue).toBeCloseTo(30 / 64, 12);
  });

  it('never sums percentiles of parts: p95 TTFT is a real request, not p95 queue + p95 prefill', () => {
    const timelines = [
      ...Array.from({ length: 19 }, () => timeline({ parts: { queue: 1, prefill: 1 } })),
      timeline({ parts: { queue: 100, prefill: 1 } }),
      timeline({ parts: { queue: 1, prefill: 100 } }),
    ];
    const report = buildReport(timelines);
    expect(report.ttft.p95Ms).toBe(101);
    expect(report.parts).not.toHaveProperty('p95Ms');
  });

  it('names the dominant TTFT part and the dominant end-to-end phase with their next tests', () => {
    const timelines = [
      timeline({ parts: { queue: 80, prefill: 20 }, gapsMs: [50, 50, 50], clientTtftMs: 110 }),
    ];
    const report = buildReport(timelines);
    expect(report.dominantTtftPhase).toMatchObject({ phase: 'queue', meanMs: 80, share: 0.8 });
    expect(report.dominantTtftPhase?.nextTest).toMatch(/seats|K\/V budget/);
    expect(report.e2ePhases.meansMs.decode).toBe(150);
    expect(report.e2ePhases.meansMs.transport).toBe(10);
    expect(report.dominantE2ePhase?.phase).toBe('decode');
  });

  it('names transport as the end-to-end phase when the client waits longer than the server works', () => {
    const timelines = [timeline({ parts: { prefill: 20 }, gapsMs: [5], clientTtftMs: 500 })];
    expect(buildReport(timelines).dominantE2ePhase?.phase).toBe('transport');
  });

  it('says "no requests" for an empty set and holds no NaN or infinity anywhere', () => {
    const report = buildReport([]);
    expect(report.isEmpty).toBe(true);
    expect(report.note).toBe('no requests');
    expect(report.ttft.p95Ms).toBeNull();
    expect(report.dominantTtftPhase).toBeNull();
    expect(report.littlesLaw).toBeNull();
    expect(nonFiniteNumbers(report)).toEqual([]);
    expect(JSON.stringify(report)).not.toMatch(/NaN|Infinity/);
  });

  it('holds no NaN when no request produced a token', () => {
    const report = buildReport([timeline({ hasFirstToken: false, parts: { queue: 5 } })]);
    expect(report.ttft.count).toBe(0);
    expect(report.parts.meanTtftMs).toBeNull();
    expect(report.exceedance).toBeNull();
    expect(nonFiniteNumbers(report)).toEqual([]);
  });

  it('leaves requests without a first token out of TTFT and refused ones out of E2E, but keeps them in throughput', () => {
    const report = buildReport([
      timeline({ parts: { prefill: 10 } }),
      timeline({ hasFirstToken: false, parts: { queue: 4 } }),
    ]);
    expect(report.ttft.count).toBe(1);
    expect(report.e2e.count).toBe(1);
    expect(report.throughput?.numFinished).toBe(2);
    expect(report.throughput?.finishShares.rejected).toBe(0.5);
  });
});
