import type Database from 'better-sqlite3';
import { SCALAR_INDEX } from '../../telemetry/report/columns';
import { INSERT_REQUEST_SQL, RequestParamsEncoder } from '../codec/timeline-row';
import type { BatchSink, WriteBatch } from './batch';

const INSERT_SLOT_EVENT_SQL = `INSERT INTO slot_events (slot_id, model_id, from_status, to_status, cause, reason, at_wall_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** Byte offsets (1-based, as SQL substr counts) of the client figures inside a packed report row. */
const CLIENT_TTFT_AT = SCALAR_INDEX.clientTtftMs * 8 + 1;
const CLIENT_E2E_AT = SCALAR_INDEX.clientE2eMs * 8 + 1;
if (SCALAR_INDEX.networkInMs !== SCALAR_INDEX.clientE2eMs + 1 || CLIENT_E2E_AT <= CLIENT_TTFT_AT)
  throw new Error('the packed row must hold clientE2eMs and networkInMs side by side after clientTtftMs');

/**
 * Late client figures: the columns, transport (client − server TTFT) and the packed report
 * row's copies, spliced in place so stored reports see them too.
 */
const UPDATE_CLIENT_SQL = `UPDATE requests SET
  client_ttft_ms = @clientTtftMs,
  transport_ms = @transportMs,
  client_e2e_ms = @clientE2eMs,
  network_in_ms = @networkInMs,
  report_f64 = substr(report_f64, 1, ${CLIENT_TTFT_AT - 1}) || @packedTtft
    || substr(report_f64, ${CLIENT_TTFT_AT + 8}, ${CLIENT_E2E_AT - CLIENT_TTFT_AT - 8}) || @packedClient
    || substr(report_f64, ${CLIENT_E2E_AT + 16})
  WHERE request_id = @requestId`;

/** Writes batches into the history database, each in one transaction. */
export function sqliteSink(db: Database.Database): BatchSink {
  const insertRequest = db.prepare(INSERT_REQUEST_SQL);
  const encoder = new RequestParamsEncoder();
  const insertSlotEvent = db.prepare(INSERT_SLOT_EVENT_SQL);
  const updateClient = db.prepare(UPDATE_CLIENT_SQL);
  const insertRun = db.prepare(
    'INSERT OR IGNORE INTO runs (id, name, started_at_wall_ms, config_json) VALUES (?, ?, ?, ?)',
  );
  const writeAll = db.transaction((batch: WriteBatch) => {
    for (const r of batch.runs) insertRun.run(r.runId, r.name, r.startedWallMs, JSON.stringify(r.config));
    for (const t of batch.timelines) insertRequest.run(encoder.encode(t));
    for (const e of batch.slotEvents)
      insertSlotEvent.run(e.slotId, e.modelId, e.fromStatus, e.toStatus, e.cause, e.reason, e.atWallMs);
    for (const u of batch.clientTtfts) {
      const clientE2eMs = u.clientE2eMs ?? null;
      const networkInMs = u.networkInMs ?? null;
      updateClient.run({
        requestId: u.requestId,
        clientTtftMs: u.clientTtftMs,
        transportMs: u.transportMs,
        clientE2eMs,
        networkInMs,
        packedTtft: Buffer.from(new Float64Array([u.clientTtftMs]).buffer),
        packedClient: Buffer.from(new Float64Array([clientE2eMs ?? NaN, networkInMs ?? NaN]).buffer),
      });
    }
  });
  return { writeBatch: (batch) => writeAll(batch) };
}
