import type Database from 'better-sqlite3';
import { z } from 'zod';

/**
 * How much telemetry to keep: requests and slot events younger than `keepDays`, and at most
 * the newest `keepRequests` requests; null means no limit of that kind. Chat history is the
 * user's data and is never pruned by these settings.
 */
export const RetentionPolicySchema = z.object({
  keepDays: z.number().positive().nullable(),
  keepRequests: z.number().int().positive().nullable(),
});
export type RetentionPolicy = z.infer<typeof RetentionPolicySchema>;

/** Thirty days and a million requests: a year of heavy chat fits in a few hundred MB. */
export const DEFAULT_RETENTION: RetentionPolicy = { keepDays: 30, keepRequests: 1_000_000 };

/** What one prune removed. */
export interface PruneResult {
  numRequests: number;
  numSlotEvents: number;
  numRuns: number;
}

/** Rows deleted per statement, so a large prune never holds the main thread for long at once. */
const CHUNK = 5_000;
const DAY_MS = 86_400_000;

/** Reading and writing the retention setting, and pruning by it. */
export interface RetentionControl {
  policy(): RetentionPolicy;
  setPolicy(policy: RetentionPolicy): void;
  /** Deletes what the policy no longer keeps, as of `nowWallMs`. */
  prune(nowWallMs?: number): PruneResult;
}

/** RetentionControl over an open history database; the policy lives in `settings`. */
export function retentionControl(db: Database.Database): RetentionControl {
  const read = db.prepare("SELECT value_json FROM settings WHERE key = 'retention'");
  const write = db.prepare(
    "INSERT INTO settings (key, value_json) VALUES ('retention', ?) ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json",
  );
  const control: RetentionControl = {
    policy: () => {
      const row = read.get() as { value_json: string } | undefined;
      return row ? RetentionPolicySchema.parse(JSON.parse(row.value_json)) : DEFAULT_RETENTION;
    },
    setPolicy: (policy) => {
      write.run(JSON.stringify(RetentionPolicySchema.parse(policy)));
    },
    prune: (nowWallMs = Date.now()) => prune(db, control.policy(), nowWallMs),
  };
  return control;
}

function prune(db: Database.Database, policy: RetentionPolicy, nowWallMs: number): PruneResult {
  const result: PruneResult = { numRequests: 0, numSlotEvents: 0, numRuns: 0 };
  if (policy.keepDays !== null) {
    const cutoffWallMs = nowWallMs - policy.keepDays * DAY_MS;
    result.numRequests += deleteInChunks(db, 'requests', 'wall_start_ms < ?', cutoffWallMs);
    result.numSlotEvents += deleteInChunks(db, 'slot_events', 'at_wall_ms < ?', cutoffWallMs);
    result.numRuns += db
      .prepare(
        'DELETE FROM runs WHERE started_at_wall_ms < ? AND NOT EXISTS (SELECT 1 FROM requests q WHERE q.run_id = runs.id)',
      )
      .run(cutoffWallMs).changes;
  }
  if (policy.keepRequests !== null) {
    const oldestKept = db
      .prepare('SELECT id FROM requests ORDER BY id DESC LIMIT 1 OFFSET ?')
      .get(policy.keepRequests - 1) as { id: number } | undefined;
    if (oldestKept) result.numRequests += deleteInChunks(db, 'requests', 'id < ?', oldestKept.id);
  }
  return result;
}

function deleteInChunks(
  db: Database.Database,
  table: 'requests' | 'slot_events',
  condition: string,
  bound: number,
): number {
  const statement = db.prepare(
    `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${condition} LIMIT ${CHUNK})`,
  );
  let total = 0;
  for (let changes = statement.run(bound).changes; changes > 0; changes = statement.run(bound).changes)
    total += changes;
  return total;
}
