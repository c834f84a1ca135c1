import type { BoundaryPhases } from './boundary-phases';
import type { Distribution } from './distribution';
import { PERCENTILE_METHOD } from './seed-phases';
import type { Boundary } from './seed-phases';
import type { LatencyReport } from './types';

/** One total at the boundary it was measured at (the client's when known, else the server's). */
interface AtBoundary {
  boundary: Boundary;
  d: Distribution;
}

/** TTFT, ITL and E2E at the report's boundary, each falling back to the server when the client never measured it. */
function totalsOf(report: LatencyReport): { ttft: AtBoundary; itl: AtBoundary; e2e: AtBoundary } {
  const c = report.boundary === 'client' ? report.client : null;
  const pick = (client: Distribution | undefined, server: Distribution): AtBoundary =>
    client && client.count > 0 ? { boundary: 'client', d: client } : { boundary: 'server', d: server };
  return { ttft: pick(c?.ttft, report.ttft), itl: pick(c?.itl, report.itl), e2e: pick(c?.e2e, report.e2e) };
}

/** The phases at the report's boundary (the client's need the full set of client stamps). */
function phasesOf(report: LatencyReport): BoundaryPhases {
  const client = report.boundary === 'client' ? report.client?.phases : null;
  return client ?? report.serverPhases;
}

/**
 * The report under seed 003's key names with seed 003's meaning, all at the top level and
 * unrounded: at the client boundary when the trace carries client stamps (`boundary` says
 * which; each total names its own boundary too). The server's own figures sit beside them
 * under `server_*`, the server's finer parts nest inside the phases (`phase_parts_ms`), and
 * the full report rides along under `report`.
 */
export function toProfileJson(
  report: LatencyReport,
  label: string,
  workload: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { ttft, itl, e2e } = totalsOf(report);
  const phases = phasesOf(report);
  const dominantTtft = phases.dominantTtft;
  const dominantE2e = phases.dominantE2e;
  const server = report.serverPhases;
  const client = report.client;
  const { tokens } = report;
  return {
    label,
    workload,
    requests: report.numRequests,
    boundary: report.boundary,
    ttft_boundary: ttft.boundary,
    itl_boundary: itl.boundary,
    e2e_boundary: e2e.boundary,
    phase_boundary: phases.boundary,
    percentile_method: PERCENTILE_METHOD,
    prompt_p50: tokens.promptP50,
    prompt_p95: tokens.promptP95,
    output_p50: tokens.outputP50,
    output_p95: tokens.outputP95,
    p50_ttft_ms: ttft.d.p50Ms,
    p95_ttft_ms: ttft.d.p95Ms,
    p95_itl_ms: itl.d.p95Ms,
    p95_e2e_ms: e2e.d.p95Ms,
    dominant_ttft_phase: dominantTtft?.phase ?? null,
    dominant_ttft_phase_mean_ms: dominantTtft?.meanMs ?? null,
    dominant_e2e_phase: dominantE2e?.phase ?? null,
    dominant_e2e_phase_mean_ms: dominantE2e?.meanMs ?? null,
    recommended_ttft_test: dominantTtft?.nextTest ?? null,
    recommended_e2e_test: dominantE2e?.nextTest ?? null,
    phase_means_ms: phases.meansMs,
    note: report.note,
    dominant_ttft_part: dominantTtft?.part ?? null,
    recommended_ttft_part_test: dominantTtft?.partNextTest ?? null,
    phase_parts_ms: phases.nestedMeansMs,
    phase_requests: phases.numRequests,
    mean_ttft_ms: phases.meanTtftMs,
    unattributed_mean_ms: phases.unattributedMeanMs,
    p90_ttft_ms: ttft.d.p90Ms,
    p99_ttft_ms: ttft.d.p99Ms,
    p50_itl_ms: itl.d.p50Ms,
    p99_itl_ms: itl.d.p99Ms,
    p50_e2e_ms: e2e.d.p50Ms,
    p99_e2e_ms: e2e.d.p99Ms,
    completed_requests: e2e.d.count,
    failed_or_rejected_share: report.throughput?.failedOrRejectedShare ?? null,
    finish_shares: report.throughput?.finishShares ?? null,
    broken_measurements: client ? client.broken : null,
    network_split_requests: client?.numSplit ?? 0,
    p50_transport_ms: client?.transport.p50Ms ?? null,
    p95_transport_ms: client?.transport.p95Ms ?? null,
    server_p50_ttft_ms: report.ttft.p50Ms,
    server_p95_ttft_ms: report.ttft.p95Ms,
    server_p95_itl_ms: report.itl.p95Ms,
    server_p95_e2e_ms: report.e2e.p95Ms,
    server_dominant_ttft_phase: server.dominantTtft?.phase ?? null,
    server_phase_means_ms: server.meansMs,
    server_dominant_ttft_part: report.dominantTtftPhase?.phase ?? null,
    server_part_means_ms: report.parts.meansMs,
    server_recommended_ttft_test: report.dominantTtftPhase?.nextTest ?? null,
    goodput: report.goodput,
    exceedance: report.exceedance?.sentence ?? null,
    littles_law_consistent: report.littlesLaw?.isConsistent ?? null,
    ...extra,
    report,
  };
}
