import type { ReportPayload } from '../../../src-main/service/contract/report-schemas';
import type { LatencyReport } from '../../../src-main/telemetry/report/types';

/**
 * A validated report payload read as telemetry/report's LatencyReport. The contract checks it
 * field for field; only phase names are typed as plain strings there, and the views treat an
 * unknown phase as uncoloured rather than failing.
 */
export function asLatencyReport(payload: ReportPayload | null): LatencyReport | null {
  return payload as LatencyReport | null;
}
