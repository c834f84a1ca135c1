import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildReport, buildReportFromColumns } from '../../../src-main/telemetry/report/build-report';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import type { Log } from '../../../src-main/telemetry/log/log';
import { canonicalTimeline } from '../../../src-main/telemetry/timeline/canonical';
import { HistoryUnavailable } from '../../../src-main/history/errors';
import { openSqliteHistory } from '../../../src-main/history/history';
import { migrate, SCHEMA_VERSION } from '../../../src-main/history/migrations';
import { everyStateTransitions } from './codec/transition-fixture';
import { useTempDirs } from './temp-dir';
import { writeV5Database } from './v5-database';

const tempDir = useTempDirs();

/** A log that keeps its lines. */
function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (topic, message) => lines.push(`${topic}: ${message}`) };
}

const countRows = (db: Database.Database) =>
  (db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;

describe('migrating a v5 history (transitions as JSON text)', () => {
  it('converts thousands of rows: every timeline reads back equal, its transitions bit for bit', () => {
    const path = join(tempDir(), 'v5.db');
    const synthetic = syntheticTimelines(3_000);
    const handmade = canonicalTimeline({ ...synthetic[0]!, requestId: 'every-state' });
    handmade.transitions = everyStateTransitions();
    const written = [...synthetic, handmade];
    writeV5Database(path, written);
    const log = recordingLog();
    const history = openSqliteHistory(path, { log });
    const read = history.timelines.recent(written.length);
    expect(read).toEqual(written);
    expect(read.at(-1)!.transitions).toStrictEqual(everyStateTransitions());
    expect(buildReportFromColumns(history.timelines.reportColumns({}), { slo: null })).toEqual(
      buildReport(written, { slo: null }),
    );
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(
      /^store: history upgraded from schema 5 to \d+ in \d+ ms \(schema 6: 3001 request row\(s\) had their transitions converted.*\), WAL of [\d.]+ MB checkpointed and truncated$/,
    );
    // The table rewrite's WAL does not stay on disk until close.
    expect(statSync(`${path}-wal`).size).toBe(0);
    history.close();
  });

  it('creates a new file without an upgrade line', () => {
    const log = recordingLog();
    openSqliteHistory(join(tempDir(), 'new.db'), { log }).close();
    expect(log.lines).toEqual([]);
  });

  it('leaves the file at the current schema with the JSON column gone and new rows writable', () => {
    const path = join(tempDir(), 'v5.db');
    const [old, next] = syntheticTimelines(2);
    writeV5Database(path, [old!]);
    const history = openSqliteHistory(path);
    history.writer.enqueue(next!);
    history.writer.flush();
    expect(history.timelines.recent(2)).toEqual([old, next]);
    history.close();
    const raw = new Database(path, { readonly: true });
    const columns = (raw.prepare('PRAGMA table_info(requests)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    expect(columns).toContain('transitions_f64');
    expect(columns).not.toContain('transitions_json');
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
  });

  it('keeps a row whose transitions do not convert with none, its other columns intact, and reports the rows once', () => {
    const path = join(tempDir(), 'v5.db');
    const written = syntheticTimelines(7);
    writeV5Database(path, written);
    const raw = new Database(path);
    const damage = raw.prepare('UPDATE requests SET transitions_json = ? WHERE id = ?');
    const broken = new Map([
      [2, '[{"state":"warming","at":1}]'],
      [3, '{"state":"queue","at":1}'],
      [4, '[{"state":"queue","at":1'],
      [5, '[{"state":"queue"}]'],
    ]);
    for (const [id, json] of broken) damage.run(json, id);
    raw.close();
    const log = recordingLog();
    const history = openSqliteHistory(path, { log });
    const expected = written.map((t, i) => (broken.has(i + 1) ? { ...t, transitions: [] } : t));
    expect(history.timelines.recent(written.length)).toEqual(expected);
    expect(buildReportFromColumns(history.timelines.reportColumns({}), { slo: null })).toEqual(
      buildReport(written, { slo: null }),
    );
    history.close();
    const problems = log.lines.filter((line) => line.includes('could not be read'));
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem).toMatch(
      /^store: upgrading history to schema 6: 4 request row\(s\) had stored transitions/,
    );
    expect(problem).toContain(`${written[1]!.requestId} (transition 0 is into unknown state "warming")`);
    expect(problem).toContain(`${written[2]!.requestId} (JSON object, not an array)`);
    expect(problem).toContain(`${written[3]!.requestId} (not JSON:`);
    expect(problem).toContain(`${written[4]!.requestId} (transition 0 at:`);
    expect(log.lines.at(-1)).toMatch(/schema 6: 3 request row\(s\) had their transitions converted/);
  });

  it('names only the first five rows that do not convert and counts the rest', () => {
    const path = join(tempDir(), 'v5.db');
    const written = syntheticTimelines(8);
    writeV5Database(path, written);
    const raw = new Database(path);
    raw.prepare(`UPDATE requests SET transitions_json = 'null'`).run();
    raw.close();
    const log = recordingLog();
    const history = openSqliteHistory(path, { log });
    expect(history.timelines.recent(8).map((t) => t.transitions)).toEqual(written.map(() => []));
    history.close();
    expect(log.lines[0]).toMatch(/8 request row\(s\) had stored transitions/);
    expect(log.lines[0]).toMatch(/JSON null, not an array\), and 3 more$/);
  });

  it('stops on a full disk with the schema step named and the file left at v5, then upgrades once there is room', () => {
    const path = join(tempDir(), 'v5.db');
    const written = syntheticTimelines(200);
    writeV5Database(path, written);
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    // SQLite's own size cap gives the real SQLITE_FULL a full disk gives: not one page more.
    raw.pragma(`max_page_count = ${raw.pragma('page_count', { simple: true }) as number}`);
    const log = recordingLog();
    let refused: unknown;
    try {
      migrate(raw, path, log);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HistoryUnavailable);
    expect(refused).toMatchObject({ reason: 'full' });
    expect((refused as Error).message).toMatch(
      /^history is off: the disk holding the history database is full; free some space and restart the app \(.*\): upgrading it to schema 6 failed and was rolled back, so the file is unchanged by that step \(still schema 5\): database or disk is full$/,
    );
    expect(log.lines).toEqual([]);
    expect(raw.pragma('user_version', { simple: true })).toBe(5);
    expect(countRows(raw)).toBe(200);
    const columns = (raw.prepare('PRAGMA table_info(requests)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    expect(columns).toContain('transitions_json');
    expect(columns).not.toContain('transitions_f64');
    raw.close();
    const history = openSqliteHistory(path, { log });
    expect(history.timelines.recent(200)).toEqual(written);
    history.close();
  });
});
