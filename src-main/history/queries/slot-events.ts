import type Database from 'better-sqlite3';
import type { SlotEventRecord } from '../../telemetry/residency/schema';

/** Most slot events one query returns unless asked otherwise. */
export const DEFAULT_SLOT_EVENT_LIMIT = 10_000;

/** Read access to stored slot transitions (the residency timeline). */
export interface SlotEventQueries {
  /** Events with fromWallMs ≤ at < toWallMs, oldest first, at most `limit`. */
  between(fromWallMs: number, toWallMs: number, limit?: number): SlotEventRecord[];
}

interface SlotEventRow {
  slot_id: string;
  model_id: string;
  from_status: SlotEventRecord['fromStatus'];
  to_status: SlotEventRecord['toStatus'];
  cause: SlotEventRecord['cause'];
  reason: string | null;
  at_wall_ms: number;
}

/** SlotEventQueries over an open history database. */
export function slotEventQueries(db: Database.Database): SlotEventQueries {
  const between = db.prepare(
    `SELECT slot_id, model_id, from_status, to_status, cause, reason, at_wall_ms FROM slot_events
     WHERE at_wall_ms >= ? AND at_wall_ms < ? ORDER BY at_wall_ms, id LIMIT ?`,
  );
  return {
    between: (fromWallMs, toWallMs, limit = DEFAULT_SLOT_EVENT_LIMIT) =>
      (between.all(fromWallMs, toWallMs, limit) as SlotEventRow[]).map((r) => ({
        slotId: r.slot_id,
        modelId: r.model_id,
        fromStatus: r.from_status,
        toStatus: r.to_status,
        cause: r.cause,
        reason: r.reason,
        atWallMs: r.at_wall_ms,
      })),
  };
}
