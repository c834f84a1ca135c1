import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { TTFT_PARTS } from '../../../src-main/telemetry/timeline/parts';
import { PART_COLUMN_NAMES } from '../../../src-main/telemetry/timeline/columns';
import { createHistory } from '../../../src-main/history/create-history';
import { HistoryUnavailable } from '../../../src-main/history/errors';
import { SCHEMA_VERSION } from '../../../src-main/history/migrations';
import { isIntact, openDatabase } from '../../../src-main/history/open';
import { openSqliteHistory } from '../../../src-main/history/history';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from './temp-dir';
import { writeV5Database } from './v5-database';

const tempDir = useTempDirs();

describe('opening the history database', () => {
  it('migrates a new file to the current schema with WAL and foreign keys on', () => {
    const db = openDatabase(join(tempDir(), 'nested', 'h.db'));
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const columns = (db.prepare('PRAGMA table_info(requests)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    for (const part of TTFT_PARTS) expect(columns).toContain(PART_COLUMN_NAMES[part]);
    expect(isIntact(db)).toBe(true);
    db.close();
  });

  it('migrates a file from the schema before the client figures: old rows read with no client E2E or inbound network, and reports still load', () => {
    const path = join(tempDir(), 'v3.db');
    const t = timeline({ id: 'old', clientTtftMs: 30 });
    writeV5Database(path, [t]);
    // Turn the file back into the schema before: no client columns, packed rows two values shorter.
    const raw = new Database(path);
    // Later migrations' columns and packed values go too (v5: remote_json, isRemote).
    raw.exec(`ALTER TABLE requests DROP COLUMN client_e2e_ms; ALTER TABLE requests DROP COLUMN network_in_ms;
      ALTER TABLE requests DROP COLUMN remote_json;
      UPDATE requests SET report_f64 = substr(report_f64, 1, length(report_f64) - 24); PRAGMA user_version = 3;`);
    raw.close();
    const again = openSqliteHistory(path);
    expect(again.timelines.recent(1)[0]).toEqual(t);
    const columns = again.timelines.reportColumns({});
    expect(columns.values.clientTtftMs[0]).toBe(30);
    expect(columns.values.clientE2eMs[0]).toBeNaN();
    expect(columns.values.networkInMs[0]).toBeNaN();
    expect(columns.values.isRemote[0]).toBe(0);
    again.close();
  });

  it('migrates a file from the schema before remote engines: old rows read as served here', () => {
    const path = join(tempDir(), 'v4.db');
    const t = timeline({ id: 'local', clientTtftMs: 30 });
    writeV5Database(path, [t]);
    const raw = new Database(path);
    raw.exec(`ALTER TABLE requests DROP COLUMN remote_json;
      UPDATE requests SET report_f64 = substr(report_f64, 1, length(report_f64) - 8); PRAGMA user_version = 4;`);
    raw.close();
    const again = openSqliteHistory(path);
    expect(again.timelines.recent(1)[0]).toEqual(t);
    expect(again.timelines.reportColumns({}).values.isRemote[0]).toBe(0);
    again.close();
  });

  it('reopens an existing file without migrating twice and keeps its data', () => {
    const path = join(tempDir(), 'h.db');
    const history = openSqliteHistory(path);
    history.writer.enqueue(timeline({ id: 'kept' }));
    history.close();
    const again = openSqliteHistory(path);
    expect(again.timelines.recent(1)[0]?.requestId).toBe('kept');
    again.close();
  });

  it('refuses a file that is not a database with a typed "corrupt" error', () => {
    const path = join(tempDir(), 'h.db');
    writeFileSync(path, 'this is a text file, not SQLite '.repeat(64));
    expect(() => openDatabase(path)).toThrow(HistoryUnavailable);
    try {
      openDatabase(path);
    } catch (error) {
      expect(error).toMatchObject({ reason: 'corrupt', path });
      expect((error as Error).message).toMatch(/damaged/);
    }
  });

  it('refuses a file written by a newer schema instead of downgrading it', () => {
    const path = join(tempDir(), 'h.db');
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openDatabase(path)).toThrow(expect.objectContaining({ reason: 'newer-schema' }));
  });
});

describe('createHistory', () => {
  it('falls back to persistence off for a corrupt file, says why, and keeps accepting work', () => {
    const path = join(tempDir(), 'h.db');
    writeFileSync(path, Buffer.alloc(8_192, 0x41));
    const history = createHistory({ path });
    expect(history.isPersistent).toBe(false);
    expect(history.unavailable).toMatchObject({ reason: 'corrupt' });
    history.writer.enqueue(timeline());
    history.writer.flush();
    expect(history.writer.stats.numDropped).toBe(1);
    expect(history.timelines.recent(10)).toEqual([]);
    const run = history.runs.create({ name: 'still works' });
    expect(run.name).toBe('still works');
    expect(history.chats.createConversation({ title: 'x' }).numMessages).toBe(0);
    expect(history.timelines.reportColumns({}).numRequests).toBe(0);
    history.close();
  });

  it('runs with persistence off by choice when given no path', () => {
    const history = createHistory({ path: null });
    expect(history.isPersistent).toBe(false);
    expect(history.unavailable?.detail).toMatch(/turned off/);
  });

  it('opens a sound file with persistence on', () => {
    const history = createHistory({ path: join(tempDir(), 'h.db') });
    expect(history.isPersistent).toBe(true);
    expect(history.unavailable).toBeNull();
    history.close();
  });
});
