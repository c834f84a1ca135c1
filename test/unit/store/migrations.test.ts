import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildReport, buildReportFromColumns, syntheticTimelines } from '../../../src-main/telemetry';
import { canonicalTimeline } from '../../../src-main/telemetry/timeline';
import { openSqliteStore, SCHEMA_VERSION } from '../../../src-main/store';
import { everyStateTransitions } from './codec/transition-fixture';
import { useTempDirs } from './temp-dir';
import { writeV5Database } from './v5-database';

const tempDir = useTempDirs();

describe('migrating a v5 history (transitions as JSON text)', () => {
  it('converts thousands of rows: every timeline reads back equal, its transitions bit for bit', () => {
    const path = join(tempDir(), 'v5.db');
    const synthetic = syntheticTimelines(3_000);
    const handmade = canonicalTimeline({ ...synthetic[0]!, requestId: 'every-state' });
    handmade.transitions = everyStateTransitions();
    const written = [...synthetic, handmade];
    writeV5Database(path, written);
    const store = openSqliteStore(path);
    const read = store.timelines.recent(written.length);
    expect(read).toEqual(written);
    expect(read.at(-1)!.transitions).toStrictEqual(everyStateTransitions());
    expect(buildReportFromColumns(store.timelines.reportColumns({}), { slo: null })).toEqual(
      buildReport(written, { slo: null }),
    );
    store.close();
  });

  it('leaves the file at the current schema with the JSON column gone and new rows writable', () => {
    const path = join(tempDir(), 'v5.db');
    const [old, next] = syntheticTimelines(2);
    writeV5Database(path, [old!]);
    const store = openSqliteStore(path);
    store.writer.enqueue(next!);
    store.writer.flush();
    expect(store.timelines.recent(2)).toEqual([old, next]);
    store.close();
    const raw = new Database(path, { readonly: true });
    const columns = (raw.prepare('PRAGMA table_info(requests)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    expect(columns).toContain('transitions_f64');
    expect(columns).not.toContain('transitions_json');
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
  });

  it('refuses a row whose JSON names an unknown state and leaves the file at v5', () => {
    const path = join(tempDir(), 'v5.db');
    writeV5Database(path, syntheticTimelines(3));
    const raw = new Database(path);
    raw.prepare(`UPDATE requests SET transitions_json = '[{"state":"warming","at":1}]' WHERE id = 2`).run();
    raw.close();
    expect(() => openSqliteStore(path)).toThrow(/unknown state "warming"/);
    const after = new Database(path, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(5);
    expect((after.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n).toBe(3);
    after.close();
  });
});
