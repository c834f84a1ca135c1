import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteHistory } from '../../../src-main/history/history';
import { SLOT_CAUSES, SLOT_STATUSES } from '../../../src-main/telemetry/residency/schema';
import { RecordedFinishSchema } from '../../../src-main/telemetry/timeline/schema';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();

/** The values a column's CHECK (column IN (…)) allows, as SQLite stores the table's SQL. */
function checkedValues(sql: string, column: string): string[] {
  const match = new RegExp(`${column}[^,]*CHECK \\(${column} IN \\(([^)]*)\\)\\)`).exec(sql);
  if (!match) throw new Error(`no CHECK list for ${column}`);
  return match[1]!.split(',').map((value) => value.trim().replace(/^'|'$/g, ''));
}

describe('the stored schema', () => {
  it('allows exactly the declared vocabularies (a change to one needs a migration)', () => {
    const path = join(tempDir(), 'h.db');
    openSqliteHistory(path).close();
    const db = new Database(path, { readonly: true });
    const sqlOf = (table: string) =>
      (db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string }).sql;
    expect(checkedValues(sqlOf('slot_events'), 'from_status')).toEqual([...SLOT_STATUSES]);
    expect(checkedValues(sqlOf('slot_events'), 'to_status')).toEqual([...SLOT_STATUSES]);
    expect(checkedValues(sqlOf('slot_events'), 'cause')).toEqual([...SLOT_CAUSES]);
    // `interrupted` is read from an answer's checkpoint, never stored in a column.
    expect(checkedValues(sqlOf('requests'), 'finish_reason')).toEqual(RecordedFinishSchema.options);
    db.close();
  });
});
