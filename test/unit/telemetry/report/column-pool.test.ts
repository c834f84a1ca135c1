import { describe, expect, it } from 'vitest';
import { buildReport, buildReportFromColumns } from '../../../../src-main/telemetry/report/build-report';
import { toReportColumns } from '../../../../src-main/telemetry/report/columns';
import { syntheticTimelines } from '../../../../src-main/telemetry/synthetic/workload';
import { pooledReportColumns } from '../../../../src-main/telemetry/report/column-pool';

describe('pooled report columns', () => {
  it('give the same report as freshly allocated columns, however sets of different sizes follow each other', () => {
    const big = syntheticTimelines(3_000, { seed: 3, models: ['a', 'b'] });
    const small = syntheticTimelines(40, { seed: 4 });
    for (const set of [big, small, big.slice(0, 1_500), small]) {
      expect(buildReport(set, { slo: { ttftMs: 100, itlMs: 30 } })).toEqual(
        buildReportFromColumns(toReportColumns(set), { slo: { ttftMs: 100, itlMs: 30 } }),
      );
    }
  });

  it('hold exactly the requests and gaps of the current set', () => {
    pooledReportColumns(syntheticTimelines(500, { seed: 5 }));
    const small = syntheticTimelines(3, { seed: 6 });
    const columns = pooledReportColumns(small);
    expect(columns.numRequests).toBe(3);
    expect(columns.values.e2eMs).toEqual(Float64Array.from(small.map((t) => t.e2eMs)));
    expect(columns.itlGapsMs).toEqual(Float64Array.from(small.flatMap((t) => t.itlMs)));
  });

  it('are never changed by building a report from them', () => {
    const columns = toReportColumns(syntheticTimelines(800, { seed: 7 }));
    const before = structuredClone(columns);
    buildReportFromColumns(columns, { slo: { ttftMs: 50, itlMs: 20 } });
    expect(columns).toEqual(before);
  });
});
