import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Log } from '../telemetry/log/log';
import { consoleLog } from '../telemetry/log/log';
import { HistoryUnavailable, toUnavailable } from './errors';
import { HISTORY_LIMITS } from '../limits';
import { migrate } from './migrations';
import { narrowToOwner, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from '../private-files';

/** How to open the history database. */
export interface OpenOptions {
  /** Path of a better-sqlite3 addon built for this process's ABI (Electron in development). */
  nativeBinding?: string;
  /** Hears what an upgrade of an older file did and what it could not carry over (default: stderr). */
  log?: Log;
}

/**
 * Opens (creating if needed) the history database at `path`: WAL journal, foreign keys on,
 * `synchronous = NORMAL` (a committed transaction survives a process crash; the last few may
 * be lost on power loss), schema migrated, then a busy timeout of 0 for serving. Throws
 * HistoryUnavailable with a reason when the file is corrupt, read-only, locked, newer, or the disk
 * is too full to open or upgrade it; never returns a half-usable connection.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database.Database {
  const { nativeBinding, log = consoleLog } = options;
  let db: Database.Database | null = null;
  try {
    if (path !== ':memory:') {
      assertWritable(path);
      makePrivate(path);
    }
    db = new Database(path, {
      timeout: HISTORY_LIMITS.openBusyTimeoutMs,
      ...(nativeBinding ? { nativeBinding } : {}),
    });
    // Reading the schema is what surfaces "file is not a database" and a damaged first page.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    probeWritable(db);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, path, log);
    // From here on the connection serves: it never waits on another process's lock (a wait
    // would stall the serving thread); busy writes are retried by their callers instead.
    db.pragma('busy_timeout = 0');
    return db;
  } catch (error) {
    db?.close();
    throw toUnavailable(error, path);
  }
}

/** The folder (created if missing) and the file, when it exists, must be writable by us. */
function assertWritable(path: string): void {
  const folder = dirname(path);
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const fail = (what: string) => (error: unknown) => {
    throw new HistoryUnavailable(
      'read-only',
      path,
      `${what} is not writable (${error instanceof Error ? error.message : String(error)})`,
    );
  };
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    fail(`folder ${folder}`)(error);
  }
  if (!existsSync(path)) return;
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    fail('the file')(error);
  }
}

/**
 * The history is the user's alone: the file is created 0600 before SQLite sees it (SQLite gives
 * the WAL and SHM the database file's mode), and files an older version left 0644 are narrowed.
 */
function makePrivate(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const why = narrowToOwner(file);
    if (why !== null) throw new HistoryUnavailable('read-only', path, why);
  }
}

/**
 * SQLite silently opens a file it may not write in read-only mode; rewriting the header's
 * user_version inside a rolled-back transaction turns that into an error here instead of at
 * the first flush.
 */
function probeWritable(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.pragma(`user_version = ${version}`);
  } finally {
    db.exec('ROLLBACK');
  }
}

/**
 * What `PRAGMA quick_check` finds in an opened database (its first three problems, or the error
 * it stopped on), or null when it reports `ok`. Run once at start: damage in the middle of the
 * file passes the open (only the schema is read) and would otherwise show up as failed reads
 * and prunes later, with history still called `on`.
 */
export function damageOf(db: Database.Database): string | null {
  try {
    const rows = db.pragma('quick_check(3)') as { quick_check: string }[];
    if (rows.length === 1 && rows[0]!.quick_check === 'ok') return null;
    return rows
      .flatMap((row) => row.quick_check.split('\n'))
      .filter((line) => !line.startsWith('***'))
      .slice(0, 3)
      .join('; ');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `PRAGMA integrity_check` result: true when the database reports `ok`. */
export function isIntact(db: Database.Database): boolean {
  const rows = db.pragma('integrity_check') as { integrity_check: string }[];
  return rows.length === 1 && rows[0]!.integrity_check === 'ok';
}
