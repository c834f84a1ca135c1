import type { ReportColumns } from '../../telemetry/report/columns';
import { STORED_COLUMNS } from '../../telemetry/timeline/columns';
import type { ClientTtftUpdate } from '../writer/batch';

/**
 * A client's figures reported after its timeline was stored live in `client_figures` (schema
 * v11), one row per request id, never in the timeline's own `requests` row: a stored timeline
 * is not updated. Every read joins them back, so a timeline reads as it did when the figures
 * were written into its row: where a request has client figures, all four replace the row's.
 */

/** The `requests` columns a client_figures row stands in for (TIMELINE_COLUMNS' names). */
export const CLIENT_FIGURE_COLUMNS = [
  'client_ttft_ms',
  'transport_ms',
  'client_e2e_ms',
  'network_in_ms',
] as const;
const STORED_NAMES = new Set(STORED_COLUMNS.map((c) => c.name));
if (!CLIENT_FIGURE_COLUMNS.every((name) => STORED_NAMES.has(name)))
  throw new Error('every client figure column must be a stored timeline column');

/** The stored timelines, each joined with its client figures (aliases `r` and `cf`). */
export const TIMELINES_FROM = 'requests r LEFT JOIN client_figures cf ON cf.request_id = r.request_id';

/** A `requests` column as TIMELINES_FROM reads it: a client figure column from `cf` where there is one. */
export function selectColumn(name: string): string {
  return (CLIENT_FIGURE_COLUMNS as readonly string[]).includes(name)
    ? `iif(cf.request_id IS NULL, r.${name}, cf.${name}) AS ${name}`
    : `r.${name}`;
}

/**
 * Aggregates over TIMELINES_FROM that carry the client figures into report columns: one byte per
 * row (1 where the request has client figures), and the figures' float64 copies
 * (`figures_f64`: client TTFT, client E2E, inbound network; NaN unknown) of those rows alone,
 * in the same order (group_concat skips NULL). Read back with overlayClientFigures.
 */
export const REPORT_FIGURES_SQL = `CAST(group_concat(iif(cf.request_id IS NULL, x'00', x'01'), x'') AS BLOB) AS has_figures,
  CAST(group_concat(cf.figures_f64, x'') AS BLOB) AS figures`;

/**
 * Writes the client figures REPORT_FIGURES_SQL loaded over the report columns' own values;
 * throws when the figures and the marked rows do not match (a damaged `figures_f64`).
 */
export function overlayClientFigures(
  columns: ReportColumns,
  hasFigures: Buffer | null,
  figures: Buffer | null,
): void {
  if (!hasFigures || !figures) return;
  const { clientTtftMs, clientE2eMs, networkInMs } = columns.values;
  const values = new Float64Array(figures.length / 8);
  new Uint8Array(values.buffer).set(figures);
  let at = 0;
  for (let row = 0; row < columns.numRequests; row++) {
    if (hasFigures[row] !== 1) continue;
    clientTtftMs[row] = values[at++]!;
    clientE2eMs[row] = values[at++]!;
    networkInMs[row] = values[at++]!;
  }
  if (at !== values.length)
    throw new Error(`client figures do not line up: ${values.length} values, ${at} read for the marked rows`);
}

/**
 * Records a client's figures for a stored request, replacing any recorded before; figures for a
 * request with no stored row are dropped (as an update of no row was before schema v11).
 */
export const INSERT_CLIENT_FIGURES_SQL = `INSERT OR REPLACE INTO client_figures
  (request_id, ${CLIENT_FIGURE_COLUMNS.join(', ')}, figures_f64)
  SELECT @requestId, @clientTtftMs, @transportMs, @clientE2eMs, @networkInMs, @figures
  WHERE EXISTS (SELECT 1 FROM requests WHERE request_id = @requestId)`;

/** INSERT_CLIENT_FIGURES_SQL's parameters: unknown figures are NULL, NaN in the float64 copies. */
export function clientFiguresParams(u: ClientTtftUpdate): Record<string, unknown> {
  const clientE2eMs = u.clientE2eMs ?? null;
  const networkInMs = u.networkInMs ?? null;
  return {
    requestId: u.requestId,
    clientTtftMs: u.clientTtftMs,
    transportMs: u.transportMs,
    clientE2eMs,
    networkInMs,
    figures: Buffer.from(new Float64Array([u.clientTtftMs, clientE2eMs ?? NaN, networkInMs ?? NaN]).buffer),
  };
}
