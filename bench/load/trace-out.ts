import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PLACEMENT_METHOD } from '../../src-main/telemetry/timeline/derive';
import { collapsedPhases, placedSeedRecord } from '../../src-main/runtime/remote/seed-trace';
import { NESTED_PARTS, PERCENTILE_METHOD } from '../../src-main/telemetry/report/seed-phases';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import type { SeedRecord } from '../../src-main/telemetry/trace/seed-record';
import type { TraceSidecar } from '../../src-main/telemetry/trace/sidecar';
import { sidecarPathOf, TRACE_SIDECAR_FORMAT } from '../../src-main/telemetry/trace/sidecar';
import { TRACE_LIMITS } from '../../src-main/limits';
import type { LoadHost } from './load-host';
import type { MeasuredPhase } from './phase';
import { clientTtftOf, isOk, percentiles } from './summary';

/** What `--trace-out` wrote, for the lab's report. */
export interface TraceOutNote {
  file: string;
  sidecar: string;
  numRecords: number;
  numLeftOut: number;
}

/** Where the client's stamps come from (the sidecar says it). */
const CLIENT_CLOCK =
  "this process's clock: performance.timeOrigin + performance.now() in ms (epoch-aligned, monotonic within the run, not rounded); only durations are taken from the server";

/** Why phases are zero-width in some records (the sidecar says it). */
const COLLAPSE_NOTE =
  "a server phase the engine reports no duration for is collapsed to zero width at the placed arrival (its stamp equals the one before it); server time it does not split (First Frame's unattributed, or an engine's whole TTFT) is carried by first_decode, ending at the server's reported first token; the rest of the client's wait is network and what the server did not report";

/**
 * Writes one seed 003 record per finished remote request of the measured phases (client stamps
 * as taken, server stamps placed, not rounded) to `file`, and the sidecar beside it: a request
 * that cannot be written (no content, no usage, stamps that cannot be placed in order) is left
 * out and counted there with its reason.
 */
export function writeSeedTrace(file: string, host: LoadHost, phases: readonly MeasuredPhase[]): TraceOutNote {
  const records: SeedRecord[] = [];
  const written: Timeline[] = [];
  const leftOut: { request_id: string; reason: string }[] = [];
  for (const t of phases.flatMap((p) => p.timelines)) {
    const placed = placedSeedRecord(t, NESTED_PARTS);
    if ('record' in placed) {
      records.push(placed.record);
      written.push(t);
    } else leftOut.push({ request_id: t.remote?.serverRequestId ?? t.requestId, reason: placed.leftOut });
  }
  writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const sidecarFile = sidecarPathOf(file);
  const sidecar = sidecarOf(file, host, phases, written, leftOut);
  writeFileSync(sidecarFile, `${JSON.stringify(sidecar, null, 2)}\n`);
  return { file, sidecar: sidecarFile, numRecords: records.length, numLeftOut: leftOut.length };
}

function sidecarOf(
  file: string,
  host: LoadHost,
  phases: readonly MeasuredPhase[],
  written: readonly Timeline[],
  leftOut: { request_id: string; reason: string }[],
): TraceSidecar {
  const uncertainties = written.map((t) => t.remote!.placementUncertaintyMs ?? 0);
  const labTtft = percentiles(phases.flatMap((p) => p.records.filter(isOk).map(clientTtftOf)));
  return {
    format: TRACE_SIDECAR_FORMAT,
    version: 1,
    trace_file: path.basename(file),
    engine: host.remote!.engine,
    endpoint: host.remote!.baseUrl,
    model: host.modelId,
    report_sources: countBy(written.map((t) => t.remote!.reportSource)),
    clock: {
      client: CLIENT_CLOCK,
      placement: PLACEMENT_METHOD,
      uncertainty_ms: {
        max: uncertainties.length === 0 ? null : Math.max(...uncertainties),
        mean:
          uncertainties.length === 0 ? null : uncertainties.reduce((a, b) => a + b, 0) / uncertainties.length,
      },
    },
    collapsed_phases: countBy(written.flatMap((t) => collapsedPhases(t.remote!.reportedParts, NESTED_PARTS))),
    collapse_note: COLLAPSE_NOTE,
    num_records: written.length,
    num_left_out: leftOut.length,
    left_out: leftOut.slice(0, TRACE_LIMITS.maxListedRejections),
    lab_client_ttft_ms: {
      ...labTtft,
      statistic: `client send → first content received, over the lab's normal finishes (HTTP 200, stop or length) of ${phases.map((p) => p.report.label).join(', ')}; ${PERCENTILE_METHOD}`,
    },
    server_phases: phases.map((p) => ({ phase: p.report.label, server_phases: p.report.serverPhases })),
  };
}

function countBy(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

/** The report's line about the trace. */
export function traceLine(note: TraceOutNote): string {
  return `trace: ${note.numRecords} seed 003 record(s) in ${note.file}, ${note.numLeftOut} left out (reasons in ${note.sidecar})`;
}
