import { describe, expectTypeOf, it } from 'vitest';
import type { ReportPayload } from '../../../src-main/service/contract/report-schemas';
import type { LatencyReport } from '../../../src-main/telemetry/report/types';

describe('service contract', () => {
  it('accepts every LatencyReport as a ReportPayload (checked by the type checker)', () => {
    expectTypeOf<LatencyReport>().toExtend<ReportPayload>();
  });
});
