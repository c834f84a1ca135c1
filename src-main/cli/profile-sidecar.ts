import type { LatencyReport } from '../telemetry/report/types';
import type { TraceSidecar } from '../telemetry/trace/sidecar';

/** Percentiles compared between the lab's print and the file's own report. */
const COMPARED = [
  ['p50', 'p50Ms'],
  ['p90', 'p90Ms'],
  ['p95', 'p95Ms'],
  ['p99', 'p99Ms'],
] as const;

/** The lab's client TTFT percentiles beside the file's, and whether they agree. */
export interface SidecarCheck {
  lab: TraceSidecar['lab_client_ttft_ms'];
  file: { n: number; p50: number | null; p90: number | null; p95: number | null; p99: number | null };
  isSame: boolean;
  /** Why they differ (requests the lab ranked that the file left out), or null when the same. */
  note: string | null;
}

/**
 * Compares the client TTFT percentiles the lab printed (kept in the sidecar) with the ones
 * this trace gives. Both are nearest-rank over the same stamps, so they agree exactly unless
 * the lab ranked requests the file had to leave out (counted in the sidecar).
 */
export function checkSidecar(sidecar: TraceSidecar, report: LatencyReport): SidecarCheck {
  const d = report.client?.ttft;
  const file = {
    n: d?.count ?? 0,
    p50: d?.p50Ms ?? null,
    p90: d?.p90Ms ?? null,
    p95: d?.p95Ms ?? null,
    p99: d?.p99Ms ?? null,
  };
  const lab = sidecar.lab_client_ttft_ms;
  const isSame = lab.n === file.n && COMPARED.every(([k]) => lab[k] === file[k]);
  const note = isSame
    ? null
    : `the lab ranked ${lab.n} request(s), this file ${file.n}; ${sidecar.num_left_out} left out of the file (reasons in the sidecar)`;
  return { lab, file, isSame, note };
}

/** The sidecar's facts and the percentile check, as lines under the text report. */
export function sidecarLines(sidecar: TraceSidecar, check: SidecarCheck): string[] {
  const ms = (v: number | null) => (v === null ? 'n/a' : v.toFixed(3));
  const row = (p: { n: number; p50: number | null; p95: number | null; p99: number | null }) =>
    `p50 ${ms(p.p50)}, p95 ${ms(p.p95)}, p99 ${ms(p.p99)} ms (n=${p.n})`;
  const collapsed = Object.entries(sidecar.collapsed_phases).map(([phase, n]) => `${phase} in ${n}`);
  const { uncertainty_ms: u } = sidecar.clock;
  return [
    '',
    `Sidecar: ${sidecar.engine} at ${sidecar.endpoint}, model ${sidecar.model}; ${sidecar.num_records} record(s), ${sidecar.num_left_out} left out`,
    `  server timing fields: ${
      Object.entries(sidecar.report_sources)
        .map(([s, n]) => `${s} ×${n}`)
        .join(', ') || 'none'
    }`,
    `  clock placement: ${sidecar.clock.placement}; uncertainty ± mean ${ms(u.mean)}, max ${ms(u.max)} ms`,
    `  collapsed server phases (zero width, no stamps reported): ${collapsed.join(', ') || 'none'}`,
    ...sidecar.left_out.slice(0, 5).map((l) => `  left out ${l.request_id}: ${l.reason}`),
    `  client TTFT as the lab printed it: ${row(check.lab)}`,
    `  client TTFT from this file:       ${row(check.file)} — ${check.isSame ? 'the same' : `differs: ${check.note}`}`,
  ];
}
