import { writeFileSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { partKey } from '../../src-main/service/openai/timings';
import { TTFT_PARTS } from '../../src-main/telemetry/timeline/parts';
import { FORMULA_SAFE_CSV } from '../../src-main/telemetry/trace/csv-export';
import { SEED_PHASES } from '../../src-main/telemetry/report/seed-phases';
import type { BoundaryPhases } from '../../src-main/telemetry/report/boundary-phases';
import type { RequestRecord } from './driver';
import type { PhaseExtras } from './load-host';
import type { PhaseSummary, Percentiles } from './summary';
import { clientItlsOf, clientTtftOf, percentiles, serverTtftOf, transportOf } from './summary';
import { print } from '../../src-main/printable';

/** One measured phase as reported: its label, rate, stored run and summary. */
export interface PhaseReport {
  label: string;
  ratePerS: number | null;
  runId: string | null;
  summary: PhaseSummary;
  /**
   * The report module's view of the run's timelines: the server's own in-process, a remote
   * engine's at the client boundary (what it reported nested inside).
   */
  server: Record<string, unknown> | null;
  /** vLLM's run-level phases from its `/metrics` before and after the phase (or why not); null otherwise. */
  serverPhases: PhaseExtras['serverPhases'];
}

/** Where each number's clock starts and stops, printed beside them. */
export const LOAD_BOUNDARIES = {
  client_ttft:
    "client: fetch() called → first content chunk read from the socket (the bench's performance.now())",
  server_ttft: 'server: timings.ttft_ms, arrival at the HTTP handler → first chunk written to the socket',
  transport: 'client TTFT − server TTFT of the same request (durations only; never raw stamps across clocks)',
  client_itl: 'pooled: gaps between consecutive content chunks as the client received them',
  client_e2e: 'client: send → data: [DONE]',
} as const;

const ms = (value: number | null): string => (value === null ? 'n/a' : value.toFixed(1)).padStart(8);
const row = (name: string, p: Percentiles) =>
  `  ${name.padEnd(13)}${ms(p.p50)}${ms(p.p90)}${ms(p.p95)}${ms(p.p99)}${ms(p.mean)}   n=${p.n}`;

/** The human-readable report of every phase. */
export function printPhases(phases: readonly PhaseReport[], header: string[]): void {
  const out = (line = '') => print(line);
  for (const line of header) out(line);
  for (const phase of phases) {
    const s = phase.summary;
    out(`\n== ${phase.label}${phase.runId ? `  (run ${phase.runId})` : ''}`);
    out(
      `  sent ${s.numSent}, ok ${s.numOk}, rejected ${s.numRejected} (${(s.rejectedShare * 100).toFixed(1)}%), errors ${s.numErrors}; window ${s.windowS.toFixed(2)} s`,
    );
    out(
      `  throughput ${s.requestsPerS.toFixed(2)} req/s, ${s.outputTokensPerS.toFixed(1)} output tok/s; cached prompt tokens ${s.cachedTokenShare === null ? 'n/a' : `${(s.cachedTokenShare * 100).toFixed(1)}%`}`,
    );
    if (s.goodput)
      out(
        `  goodput (client TTFT ≤ ${s.goodput.slo.ttftMs} ms, own p95 ITL ≤ ${s.goodput.slo.itlMs} ms): ${s.goodput.numGood}/${s.numSent} = ${(s.goodput.goodShare * 100).toFixed(1)}%, ${s.goodput.goodPerS.toFixed(2)} req/s`,
      );
    out(
      `  ${'ms'.padEnd(13)}${'p50'.padStart(8)}${'p90'.padStart(8)}${'p95'.padStart(8)}${'p99'.padStart(8)}${'mean'.padStart(8)}`,
    );
    out(row('client TTFT', s.clientTtftMs));
    out(row('server TTFT', s.serverTtftMs));
    out(row('transport', s.transportMs));
    out(row('client ITL', s.clientItlMs));
    out(row('client E2E', s.clientE2eMs));
    out(
      `  server TTFT part means (ms): ${Object.entries(s.partMeansMs)
        .map(([k, v]) => `${k.replace(/_ms$/, '')} ${v === null ? 'n/a' : v.toFixed(2)}`)
        .join(', ')}`,
    );
    const client = phase.server?.['client_phases'] as BoundaryPhases | null | undefined;
    if (client)
      out(
        `  client-boundary phase means (ms, seed 003): ${SEED_PHASES.map((p) => `${p} ${client.meansMs[p]?.toFixed(2) ?? 'n/a'}`).join(', ')}; dominant TTFT phase ${client.dominantTtft?.phase ?? 'n/a'}`,
      );
    if (phase.serverPhases) out(`  ${serverPhasesLine(phase.serverPhases)}`);
  }
}

/** vLLM's run-level phases in one line: mean and the bucket holding p95, per histogram. */
function serverPhasesLine(phases: NonNullable<PhaseReport['serverPhases']>): string {
  if ('error' in phases) return `vLLM /metrics not read: ${phases.error}`;
  const bucket = (b: { loMs: number; hiMs: number } | null) => (b ? `(${b.loMs}, ${b.hiMs}]` : 'n/a');
  const each = phases.phases.map(
    (p) => `${p.phase} mean ${p.meanMs?.toFixed(1) ?? 'n/a'}, p95 in ${bucket(p.p95)} (n=${p.numRequests})`,
  );
  return `vLLM /metrics, ms: ${each.join('; ') || 'no request histograms'} — ${phases.note}`;
}

const CSV_COLUMNS = [
  'phase',
  'index',
  'conversation_id',
  'turn',
  'scheduled_ms',
  'sent_ms',
  'http_status',
  'finish_reason',
  'request_id',
  'prompt_tokens',
  'cached_tokens',
  'output_tokens',
  'client_ttft_ms',
  'server_ttft_ms',
  'transport_ms',
  'client_itl_mean_ms',
  'client_itl_p95_ms',
  'client_e2e_ms',
  ...TTFT_PARTS.map(partKey),
  'unattributed_ms',
  'error',
];

/** Writes one CSV row per measured request (warm-up excluded), every phase in one file. */
export function writeRequestsCsv(
  file: string,
  phases: readonly { label: string; records: readonly RequestRecord[] }[],
): void {
  const rows = phases.flatMap(({ label, records }) => records.map((r) => csvRow(label, r)));
  writeFileSync(file, stringify(rows, { header: true, columns: CSV_COLUMNS, ...FORMULA_SAFE_CSV }));
}

function csvRow(label: string, r: RequestRecord): Record<string, unknown> {
  const itl = percentiles(clientItlsOf(r));
  const clientTtft = clientTtftOf(r);
  const serverTtft = serverTtftOf(r);
  const usage = r.seen.usage;
  const parts = Object.fromEntries(
    [...TTFT_PARTS.map(partKey), 'unattributed_ms'].map((key) => [key, r.seen.timings?.[key] ?? '']),
  );
  const num = (value: number) => (Number.isFinite(value) ? Number(value.toFixed(3)) : '');
  return {
    phase: label,
    index: r.planned.index,
    conversation_id: r.planned.conversationId,
    turn: r.planned.turn,
    scheduled_ms: num(r.scheduledMs),
    sent_ms: num(r.sentMs),
    http_status: r.seen.httpStatus,
    finish_reason: r.seen.finishReason ?? '',
    request_id: r.seen.requestId ?? '',
    prompt_tokens: usage?.prompt_tokens ?? '',
    cached_tokens: usage?.prompt_tokens_details?.cached_tokens ?? '',
    output_tokens: usage?.completion_tokens ?? r.seen.chunkAts.length,
    client_ttft_ms: num(clientTtft),
    server_ttft_ms: num(serverTtft),
    transport_ms: num(transportOf(r)),
    client_itl_mean_ms: num(itl.mean ?? Number.NaN),
    client_itl_p95_ms: num(itl.p95 ?? Number.NaN),
    client_e2e_ms: num(r.seen.doneAt - r.seen.sentAt),
    ...parts,
    error: r.seen.errorMessage ?? '',
  };
}
