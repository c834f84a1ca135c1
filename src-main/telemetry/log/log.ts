import { printable } from '../../printable';

/** One problem told to a developer (the log file) and, when it matters to them, a user (status). */
export interface LogEntry {
  /** Wall-clock epoch ms. */
  atWallMs: number;
  /** The part that hit it: `slots`, `store`, `chat`, `events`, `export`, `timeline`… */
  topic: string;
  message: string;
}

/**
 * Where a failure goes that its caller cannot hand back: every catch that does not handle an
 * error tells a Log. Writing to a log never throws.
 */
export interface Log {
  warn(topic: string, message: string): void;
  /** What a developer may want when something looks wrong, never a problem: the file only, not shown to users. */
  debug?(topic: string, message: string): void;
}

/**
 * A log that writes to stderr (CLIs, tests, and the fallback when the log file cannot be
 * written); debug lines only when FIRST_FRAME_DEBUG is set.
 */
export const consoleLog: Log = {
  warn: (topic, message) => console.warn(printable(`[${topic}] ${message}`)),
  debug: (topic, message) => {
    if (process.env['FIRST_FRAME_DEBUG']) console.warn(printable(`[${topic}] debug: ${message}`));
  },
};

/** The message of anything thrown, for a log line. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
