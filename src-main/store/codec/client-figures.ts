import { SCALAR_INDEX } from '../../telemetry/report/columns';
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

/** Byte offsets (1-based, as SQL substr counts) of the client figures inside a packed report row. */
const CLIENT_TTFT_AT = SCALAR_INDEX.clientTtftMs * 8 + 1;
const CLIENT_E2E_AT = SCALAR_INDEX.clientE2eMs * 8 + 1;
if (SCALAR_INDEX.networkInMs !== SCALAR_INDEX.clientE2eMs + 1 || CLIENT_E2E_AT <= CLIENT_TTFT_AT)
  throw new Error('the packed row must hold clientE2eMs and networkInMs side by side after clientTtftMs');

/** The stored timelines, each joined with its client figures (aliases `r` and `cf`). */
export const TIMELINES_FROM = 'requests r LEFT JOIN client_figures cf ON cf.request_id = r.request_id';

/** A `requests` column as TIMELINES_FROM reads it: a client figure column from `cf` where there is one. */
export function selectColumn(name: string): string {
  return (CLIENT_FIGURE_COLUMNS as readonly string[]).includes(name)
    ? `iif(cf.request_id IS NULL, r.${name}, cf.${name}) AS ${name}`
    : `r.${name}`;
}

/**
 * A row's packed report (`report_f64`) as TIMELINES_FROM reads it: the client figures'
 * float64 copies (`figures_f64`) spliced in where the request has them. `||` yields text and
 * substr counts a text's characters, so every operand is read as a blob and so is the result.
 */
export const REPORT_ROW_SQL = `iif(cf.request_id IS NULL, r.report_f64, CAST(
  substr(CAST(r.report_f64 AS BLOB), 1, ${CLIENT_TTFT_AT - 1}) || substr(cf.figures_f64, 1, 8)
    || substr(CAST(r.report_f64 AS BLOB), ${CLIENT_TTFT_AT + 8}, ${CLIENT_E2E_AT - CLIENT_TTFT_AT - 8})
    || substr(cf.figures_f64, 9, 16) || substr(CAST(r.report_f64 AS BLOB), ${CLIENT_E2E_AT + 16}) AS BLOB))`;

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
