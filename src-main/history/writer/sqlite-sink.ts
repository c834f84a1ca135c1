import type Database from 'better-sqlite3';
import { clientFiguresParams, INSERT_CLIENT_FIGURES_SQL } from '../codec/client-figures';
import { INSERT_REQUEST_SQL, RequestParamsEncoder } from '../codec/timeline-row';
import type { BatchSink, WriteBatch } from './batch';

const INSERT_SLOT_EVENT_SQL = `INSERT INTO slot_events (slot_id, model_id, from_status, to_status, cause, reason, at_wall_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** Writes batches into the history database, each in one transaction. */
export function sqliteSink(db: Database.Database): BatchSink {
  const insertRequest = db.prepare(INSERT_REQUEST_SQL);
  const encoder = new RequestParamsEncoder();
  const insertSlotEvent = db.prepare(INSERT_SLOT_EVENT_SQL);
  const insertClientFigures = db.prepare(INSERT_CLIENT_FIGURES_SQL);
  const insertRun = db.prepare(
    'INSERT OR IGNORE INTO runs (id, name, started_at_wall_ms, config_json) VALUES (?, ?, ?, ?)',
  );
  const writeAll = db.transaction((batch: WriteBatch) => {
    for (const r of batch.runs) insertRun.run(r.runId, r.name, r.startedWallMs, JSON.stringify(r.config));
    for (const t of batch.timelines) insertRequest.run(encoder.encode(t));
    for (const e of batch.slotEvents)
      insertSlotEvent.run(e.slotId, e.modelId, e.fromStatus, e.toStatus, e.cause, e.reason, e.atWallMs);
    // A client's late figures are their own record: the timeline's row is never updated.
    for (const u of batch.clientTtfts) insertClientFigures.run(clientFiguresParams(u));
  });
  return { writeBatch: (batch) => writeAll(batch) };
}
