import type Database from 'better-sqlite3';
import { SCALAR_INDEX } from '../../telemetry/report';
import { INSERT_REQUEST_SQL, toRequestParams } from '../codec/timeline-row';
import type { BatchSink, WriteBatch } from './batch';

const INSERT_SLOT_EVENT_SQL = `INSERT INTO slot_events (slot_id, model_id, from_status, to_status, cause, reason, at_wall_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** Byte offset (1-based, as SQL substr counts) of clientTtftMs inside a packed report row. */
const CLIENT_TTFT_AT = SCALAR_INDEX.clientTtftMs * 8 + 1;

/**
 * A late client TTFT: the column, transport (client − server TTFT) and the packed report
 * row's copy, spliced in place so stored reports see it too.
 */
const UPDATE_CLIENT_TTFT_SQL = `UPDATE requests SET
  client_ttft_ms = @clientTtftMs,
  transport_ms = @transportMs,
  report_f64 = substr(report_f64, 1, ${CLIENT_TTFT_AT - 1}) || @packed || substr(report_f64, ${CLIENT_TTFT_AT + 8})
  WHERE request_id = @requestId`;

/** Writes batches into the history database, each in one transaction. */
export function sqliteSink(db: Database.Database): BatchSink {
  const insertRequest = db.prepare(INSERT_REQUEST_SQL);
  const insertSlotEvent = db.prepare(INSERT_SLOT_EVENT_SQL);
  const updateClientTtft = db.prepare(UPDATE_CLIENT_TTFT_SQL);
  const insertRun = db.prepare(
    'INSERT OR IGNORE INTO runs (id, name, started_at_wall_ms, config_json) VALUES (?, ?, ?, ?)',
  );
  const writeAll = db.transaction((batch: WriteBatch) => {
    for (const r of batch.runs) insertRun.run(r.runId, r.name, r.startedWallMs, JSON.stringify(r.config));
    for (const t of batch.timelines) insertRequest.run(toRequestParams(t));
    for (const e of batch.slotEvents)
      insertSlotEvent.run(e.slotId, e.modelId, e.fromStatus, e.toStatus, e.cause, e.reason, e.atWallMs);
    for (const u of batch.clientTtfts) {
      const packed = Buffer.from(new Float64Array([u.clientTtftMs]).buffer);
      updateClientTtft.run({ ...u, packed });
    }
  });
  return { writeBatch: (batch) => writeAll(batch) };
}
