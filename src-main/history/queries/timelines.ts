import type Database from 'better-sqlite3';
import type { ReportColumns } from '../../telemetry/report/columns';
import type { Timeline } from '../../telemetry/timeline/schema';
import type { RequestRow } from '../codec/timeline-row';
import { TIMELINES_FROM } from '../codec/client-figures';
import { fromRequestRow, REQUEST_SELECT } from '../codec/timeline-row';
import type { TimelineFilter } from './filter';
import { andWhere, whereOf } from './filter';
import { loadReportColumns } from './report-load';

/** Rows per batch when timelines are streamed out (export): memory stays flat at one batch. */
export const DEFAULT_BATCH_ROWS = 1_000;

/** Read access to stored timelines. Lists come back oldest first. */
export interface TimelineQueries {
  /** The last `limit` stored timelines, oldest first. */
  recent(limit: number): Timeline[];
  /** Every timeline of a run, oldest first. */
  ofRun(runId: string): Timeline[];
  /** The newest stored timeline for each of these request ids (absent ids are left out). */
  byRequestIds(requestIds: readonly string[]): Map<string, Timeline>;
  /** How many stored timelines match. */
  count(filter: TimelineFilter): number;
  /** Matching timelines in batches of rows (keyset pagination: no cursor is held between batches). */
  batches(filter: TimelineFilter, batchRows?: number): Generator<Timeline[]>;
  /** The report's columns for the matching timelines, without building Timeline objects. */
  reportColumns(filter: TimelineFilter): ReportColumns;
}

/** TimelineQueries over an open history database. */
export function timelineQueries(db: Database.Database): TimelineQueries {
  const recent = db.prepare(`SELECT ${REQUEST_SELECT} FROM ${TIMELINES_FROM} ORDER BY r.id DESC LIMIT ?`);
  const ofRun = db.prepare(
    `SELECT ${REQUEST_SELECT} FROM ${TIMELINES_FROM} WHERE r.run_id = ? ORDER BY r.id`,
  );
  const byRequestId = db.prepare(
    `SELECT ${REQUEST_SELECT} FROM ${TIMELINES_FROM} WHERE r.request_id = ? ORDER BY r.id DESC LIMIT 1`,
  );
  return {
    recent: (limit) => (recent.all(limit) as RequestRow[]).map(fromRequestRow).reverse(),
    ofRun: (runId) => (ofRun.all(runId) as RequestRow[]).map(fromRequestRow),
    byRequestIds: (requestIds) => {
      const out = new Map<string, Timeline>();
      for (const id of new Set(requestIds)) {
        const row = byRequestId.get(id) as RequestRow | undefined;
        if (row) out.set(id, fromRequestRow(row));
      }
      return out;
    },
    count: (filter) => {
      const where = whereOf(filter);
      return (
        db.prepare(`SELECT count(*) AS n FROM requests ${where.sql}`).get(where.params) as { n: number }
      ).n;
    },
    batches: (filter, batchRows = DEFAULT_BATCH_ROWS) => batchesOf(db, filter, batchRows),
    reportColumns: (filter) => loadReportColumns(db, filter),
  };
}

function* batchesOf(db: Database.Database, filter: TimelineFilter, batchRows: number): Generator<Timeline[]> {
  const where = whereOf(filter);
  const batch = db.prepare(
    `SELECT r.id AS row_id, ${REQUEST_SELECT} FROM ${TIMELINES_FROM} ${andWhere(where, 'r.id > @afterId')} ORDER BY r.id LIMIT @batchRows`,
  );
  let afterId = 0;
  for (;;) {
    const rows = batch.all({ ...where.params, afterId, batchRows }) as (RequestRow & { row_id: number })[];
    if (rows.length === 0) return;
    afterId = rows[rows.length - 1]!.row_id;
    yield rows.map(fromRequestRow);
  }
}
