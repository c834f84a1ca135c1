import { describe, expect, it } from 'vitest';
import { ReportSchema } from '../../../src-main/service/contract/report-schemas';
import { buildReport } from '../../../src-main/telemetry/report/build-report';
import { positiveControlRecords } from '../../../src-main/telemetry/trace/controls';
import { importTraceLines } from '../../../src-main/telemetry/trace/import-trace';

describe('the report crossing a transport', () => {
  it('keeps every client-boundary field (phases, broken measurements, goodput boundary), stripping nothing', async () => {
    const { timelines } = await importTraceLines(positiveControlRecords().map((r) => JSON.stringify(r)));
    const report = buildReport(timelines, { slo: { ttftMs: 500, itlMs: 50 } });
    const payload = JSON.parse(JSON.stringify(report)) as unknown;
    expect(ReportSchema.parse(payload)).toEqual(payload);
    expect(report.client?.phases?.dominantTtft?.phase).toBe('queue');
  });
});
