import type { LatencyReport } from './types';

/**
 * The report under seed 003's key names where they exist (`p95_ttft_ms`, `dominant_ttft_phase`,
 * `phase_means_ms`, …), plus ours: the boundary of each total, the other percentiles, the
 * skipped lines and the full report under `report`. Seed 003 measured TTFT at the client; ours
 * is server TTFT unless `ttft_boundary` says otherwise, and client TTFT has its own keys.
 */
export function toProfileJson(
  report: LatencyReport,
  label: string,
  workload: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { ttft, itl, e2e, clientTtft, tokens } = report;
  const ttftPhase = report.dominantTtftPhase;
  const e2ePhase = report.dominantE2ePhase;
  return {
    label,
    workload,
    requests: report.numRequests,
    prompt_p50: tokens.promptP50,
    prompt_p95: tokens.promptP95,
    output_p50: tokens.outputP50,
    output_p95: tokens.outputP95,
    p50_ttft_ms: ttft.p50Ms,
    p95_ttft_ms: ttft.p95Ms,
    p95_itl_ms: itl.p95Ms,
    p95_e2e_ms: e2e.p95Ms,
    dominant_ttft_phase: ttftPhase?.phase ?? null,
    dominant_ttft_phase_mean_ms: ttftPhase?.meanMs ?? null,
    dominant_e2e_phase: e2ePhase?.phase ?? null,
    dominant_e2e_phase_mean_ms: e2ePhase?.meanMs ?? null,
    recommended_ttft_test: ttftPhase?.nextTest ?? null,
    recommended_e2e_test: e2ePhase?.nextTest ?? null,
    phase_means_ms: report.e2ePhases.meansMs,
    note: report.note,
    ttft_boundary: report.boundaries.ttft,
    itl_boundary: report.boundaries.itl,
    e2e_boundary: report.boundaries.e2e,
    p90_ttft_ms: ttft.p90Ms,
    p99_ttft_ms: ttft.p99Ms,
    p50_itl_ms: itl.p50Ms,
    p99_itl_ms: itl.p99Ms,
    p50_e2e_ms: e2e.p50Ms,
    p99_e2e_ms: e2e.p99Ms,
    p50_client_ttft_ms: clientTtft.p50Ms,
    p95_client_ttft_ms: clientTtft.p95Ms,
    ttft_part_shares: report.parts.shares,
    exceedance: report.exceedance?.sentence ?? null,
    littles_law_consistent: report.littlesLaw?.isConsistent ?? null,
    ...extra,
    report,
  };
}
