import type Database from 'better-sqlite3';
import type { ReportColumns } from '../../telemetry/report/columns';
import { overlayClientFigures, REPORT_FIGURES_SQL, TIMELINES_FROM } from '../codec/client-figures';
import { unpackColumns } from '../codec/packed';
import type { TimelineFilter } from './filter';
import { whereOf } from './filter';

/** Separates ids in the aggregated lists (ASCII unit separator: never in a model or request id). */
const MODEL_SEPARATOR = '\u001f';

interface AggregateRow {
  n: number;
  scalars: Buffer | null;
  gaps: Buffer | null;
  models: string | null;
  ids: string | null;
  has_figures: Buffer | null;
  figures: Buffer | null;
}

/**
 * Loads the report columns of every stored timeline matching `filter` in one aggregate query:
 * SQLite concatenates the packed rows, the gaps, the model ids and the client figures in one
 * scan, so they line up row for row, and no per-request JavaScript object is made.
 */
export function loadReportColumns(db: Database.Database, filter: TimelineFilter): ReportColumns {
  const where = whereOf(filter);
  const row = db
    .prepare(
      `SELECT count(*) AS n,
        CAST(group_concat(r.report_f64, x'') AS BLOB) AS scalars,
        CAST(group_concat(r.itl_gaps_f64, x'') AS BLOB) AS gaps,
        group_concat(r.model_id, char(31)) AS models,
        group_concat(r.request_id, char(31)) AS ids,
        ${REPORT_FIGURES_SQL}
      FROM ${TIMELINES_FROM} ${where.sql}`,
    )
    .get(where.params) as AggregateRow;
  const modelIds = row.n === 0 ? [] : (row.models ?? '').split(MODEL_SEPARATOR);
  const requestIds = row.n === 0 ? [] : (row.ids ?? '').split(MODEL_SEPARATOR);
  const columns = unpackColumns(row.scalars, row.gaps, modelIds, requestIds);
  overlayClientFigures(columns, row.has_figures, row.figures);
  return columns;
}
