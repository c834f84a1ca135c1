import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { timeline } from './timeline-fixture';

describe('goodput and throughput', () => {
  const slo = { ttftMs: 100, itlMs: 30 };
  const set = () => [
    timeline({ arrivedAt: 0, parts: { prefill: 50 }, gapsMs: [10, 20] }), // good
    timeline({ arrivedAt: 0, parts: { prefill: 150 }, gapsMs: [10] }), // misses TTFT
    timeline({
      arrivedAt: 0,
      parts: { prefill: 50 },
      gapsMs: Array.from({ length: 20 }, (_, i) => (i >= 18 ? 90 : 10)),
    }), // own p95 ITL 90 (rank 19 of 20)
    timeline({ arrivedAt: 0, parts: { prefill: 10 }, finish: 'error' }), // fast but failed
    timeline({ arrivedAt: 0, hasFirstToken: false, parts: { inbox: 1 }, finish: 'rejected' }),
    timeline({ arrivedAt: 0, parts: { prefill: 20 } }), // one token: no gaps, ITL objective met trivially
  ];

  it('counts a request as good only when it finished normally within both objectives', () => {
    const good = buildReport(set(), { slo }).goodput!;
    expect(good.numGood).toBe(2);
    expect(good.goodShare).toBeCloseTo(2 / 6, 12);
  });

  it('reports the share that missed the TTFT objective among requests that got a first token', () => {
    expect(buildReport(set(), { slo }).goodput!.missedTtftShare).toBeCloseTo(1 / 5, 12);
  });

  it('reports raw throughput and the failed or rejected share beside goodput', () => {
    const report = buildReport(set(), { slo });
    const rate = report.throughput!;
    const windowS = rate.windowMs / 1000;
    expect(rate.requestsPerS).toBeCloseTo(6 / windowS, 9);
    const numTokens = 3 + 2 + 21 + 1 + 0 + 1;
    expect(rate.outputTokensPerS).toBeCloseTo(numTokens / windowS, 9);
    expect(rate.failedOrRejectedShare).toBeCloseTo(2 / 6, 12);
    expect(report.goodput!.goodPerS).toBeCloseTo(2 / windowS, 9);
  });

  it('has throughput but no goodput without an SLO', () => {
    const report = buildReport(set());
    expect(report.throughput).not.toBeNull();
    expect(report.goodput).toBeNull();
  });
});
