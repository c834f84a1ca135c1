import Database from 'better-sqlite3';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { REQUEST_COLUMNS, toRequestParams } from '../../../src-main/history/codec/timeline-row';
import { MIGRATIONS } from '../../../src-main/history/migrations';

/** `requests` columns added after schema v5 (v9: disk_read_ms). */
const LATER_COLUMNS: ReadonlySet<string> = new Set(['disk_read_ms']);

/**
 * Writes a database at schema v5 holding `timelines` as that schema's writer stored them: every
 * column as today, but the transitions as JSON text in `transitions_json`.
 */
export function writeV5Database(path: string, timelines: readonly Timeline[]): void {
  const db = new Database(path);
  for (const migration of MIGRATIONS.slice(0, 5)) {
    if (typeof migration !== 'string') throw new Error('schema v1–v5 are plain SQL');
    db.exec(migration);
  }
  db.pragma('user_version = 5');
  const transitionsIndex = REQUEST_COLUMNS.indexOf('transitions_f64');
  // Columns a later schema added are not in a v5 file.
  const isLater = (c: string) => LATER_COLUMNS.has(c);
  const columns = REQUEST_COLUMNS.map((c, i) => (i === transitionsIndex ? 'transitions_json' : c)).filter(
    (c) => !isLater(c),
  );
  const insert = db.prepare(
    `INSERT INTO requests (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  db.transaction(() => {
    for (const t of timelines) {
      const params = toRequestParams(t);
      params[transitionsIndex] = JSON.stringify(t.transitions);
      insert.run(params.filter((_, i) => !isLater(REQUEST_COLUMNS[i]!)));
    }
  })();
  db.close();
}
