import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { narrowToOwner, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from '../../private-files';
import path from 'node:path';
import type { Log, LogEntry } from './log';
import { consoleLog } from './log';

/** Size of the log file before it is rotated (the previous one is kept as `.1`). */
export const MAX_LOG_BYTES = 1024 * 1024;
/** Entries kept in memory for the status view. */
export const NUM_RECENT_ENTRIES = 50;

/** A Log that appends to `<dir>/first-frame.log` and remembers the latest entries. */
export interface FileLog extends Log {
  readonly path: string;
  /** The latest entries, oldest first (what the status view shows). */
  recent(): LogEntry[];
  debug(topic: string, message: string): void;
}

/**
 * Opens the log file under `dir` (created if missing). A line is appended synchronously, so it
 * is on disk even if the process dies next; problems are rare, so this costs the serving path
 * nothing. The folder is 0700 and the files 0600 (a log names models, folders and requests). Past MAX_LOG_BYTES the file becomes `first-frame.log.1` and a new one starts. If the
 * file cannot be written, lines go to stderr instead, with the reason once.
 */
export function openFileLog(dir: string, maxBytes = MAX_LOG_BYTES): FileLog {
  const file = path.join(dir, 'first-frame.log');
  const recent: LogEntry[] = [];
  let numBytes = sizeOf(file);
  // A log an older version wrote 0644 becomes the user's alone before anything is added.
  const problems = [narrowToOwner(dir, PRIVATE_FOLDER_MODE), narrowToOwner(file), narrowToOwner(`${file}.1`)];
  for (const problem of problems) if (problem !== null) consoleLog.warn('log', problem);
  let isBroken = false;
  const write = (line: string): void => {
    if (isBroken) return;
    try {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
      if (numBytes + line.length > maxBytes && numBytes > 0) {
        renameSync(file, `${file}.1`);
        numBytes = 0;
      }
      appendFileSync(file, line, { mode: PRIVATE_FILE_MODE });
      numBytes += Buffer.byteLength(line);
    } catch (error) {
      isBroken = true;
      consoleLog.warn('log', `cannot write ${file} (${(error as Error).message}); logging to stderr`);
    }
  };
  return {
    path: file,
    warn(topic, message) {
      const entry = { atWallMs: Date.now(), topic, message };
      recent.push(entry);
      if (recent.length > NUM_RECENT_ENTRIES) recent.shift();
      write(`${new Date(entry.atWallMs).toISOString()} [${topic}] ${message}\n`);
      if (isBroken) consoleLog.warn(topic, message);
    },
    debug(topic, message) {
      write(`${new Date().toISOString()} [${topic}] debug: ${message}\n`);
    },
    recent: () => [...recent],
  };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // no log yet: it starts empty
  }
}
