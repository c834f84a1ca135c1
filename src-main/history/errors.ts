/**
 * Why the store cannot keep history: the file is not a sound SQLite database, the file or its
 * folder cannot be written, another process holds the write lock, the disk is full (while
 * opening or upgrading it; once open, a full disk only degrades writing, see health.ts), or the
 * file was written by a newer app whose schema this one does not know.
 */
export type UnavailableReason = 'corrupt' | 'read-only' | 'busy' | 'full' | 'newer-schema' | 'cannot-open';

/** The words for a full disk, shared by the reason history is off and the degraded status. */
export const DISK_FULL = 'the disk holding the history database is full';

/** The database cannot be used; the app keeps serving with persistence off and says why. */
export class HistoryUnavailable extends Error {
  constructor(
    readonly reason: UnavailableReason,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`history is off: ${describeReason(reason)} (${path}): ${detail}`);
    this.name = 'HistoryUnavailable';
  }
}

/** A sentence for the UI saying what is wrong and what the user can do. */
export function describeReason(reason: UnavailableReason): string {
  switch (reason) {
    case 'corrupt':
      return 'the history database is damaged; move it aside to start a fresh one';
    case 'read-only':
      return 'the history database or its folder cannot be written';
    case 'busy':
      return 'another process is writing the history database';
    case 'full':
      return `${DISK_FULL}; free some space and restart the app`;
    case 'newer-schema':
      return 'the history database was written by a newer version of the app';
    case 'cannot-open':
      return 'the history database could not be opened';
  }
}

const CORRUPT_CODES = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT_VTAB',
  'SQLITE_CORRUPT_SEQUENCE',
  'SQLITE_CORRUPT_INDEX',
]);
const READ_ONLY_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC']);

/** The `code` of a SQLite or Node error ('' when it has none). */
function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

/** Maps an error from opening or writing the database onto a HistoryUnavailable. */
export function toUnavailable(error: unknown, path: string): HistoryUnavailable {
  if (error instanceof HistoryUnavailable) return error;
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (CORRUPT_CODES.has(code)) return new HistoryUnavailable('corrupt', path, detail);
  if (code.startsWith('SQLITE_READONLY') || READ_ONLY_CODES.has(code))
    return new HistoryUnavailable('read-only', path, detail);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return new HistoryUnavailable('busy', path, detail);
  if (FULL_CODES.has(code)) return new HistoryUnavailable('full', path, detail);
  return new HistoryUnavailable('cannot-open', path, detail);
}

/** True when a write error means the database can no longer be trusted or written. */
export function isFatalWriteError(error: unknown): boolean {
  const code = errorCode(error);
  return CORRUPT_CODES.has(code) || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR');
}

/**
 * What a failed write means for the items it carried: `busy` (another connection holds the
 * lock: retry soon), `full` (the disk or the file's size limit is full: keep them and retry
 * later), `fatal` (the database cannot be trusted or written: stop), or `item` (this item is
 * wrong, e.g. an unknown run: its neighbours are fine).
 */
export type WriteProblem = 'busy' | 'full' | 'fatal' | 'item';

/** Classifies a write error (see WriteProblem). */
export function writeProblemOf(error: unknown): WriteProblem {
  const code = errorCode(error);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  if (code === 'SQLITE_FULL') return 'full';
  return isFatalWriteError(error) ? 'fatal' : 'item';
}

/** True for errors a later retry can cure (busy, full): the caller keeps the data and says so. */
export function isRetryableWriteError(error: unknown): boolean {
  const problem = writeProblemOf(error);
  return problem === 'busy' || problem === 'full';
}
