import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Timeline } from '../timeline/schema';
import type { RejectedLine } from './parse-line';
import { parseTraceLine, TraceImportError } from './parse-line';

/** How an import treats bad lines and where its timelines go. */
export interface ImportOptions {
  /** Skip bad lines and list them instead of stopping at the first (default false). */
  skipBadLines?: boolean;
  /** Run to file the imported timelines under (default: none). */
  runId?: string | null;
}

/**
 * What an import produced: the timelines, how many non-blank lines it read, and every line it
 * skipped with its reason (only with skipBadLines; otherwise the first bad line throws).
 */
export interface ImportResult {
  timelines: Timeline[];
  numLines: number;
  numImported: number;
  rejected: RejectedLine[];
}

/**
 * Imports JSONL lines (seed 003 records or our own timelines, mixed freely). Blank lines are
 * ignored. A bad line throws TraceImportError with its 1-based number and reason unless
 * `skipBadLines` is set, in which case it is counted and listed — never dropped silently.
 */
export async function importTraceLines(
  lines: Iterable<string> | AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const result: ImportResult = { timelines: [], numLines: 0, numImported: 0, rejected: [] };
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    result.numLines++;
    const parsed = parseTraceLine(text, options.runId ?? null);
    if ('timeline' in parsed) {
      result.timelines.push(parsed.timeline);
      result.numImported++;
    } else if (options.skipBadLines) result.rejected.push({ line: lineNumber, reason: parsed.reason });
    else throw new TraceImportError(lineNumber, parsed.reason);
  }
  return result;
}

/** Imports JSONL text (a whole file already in memory). */
export function importTraceText(text: string, options: ImportOptions = {}): Promise<ImportResult> {
  return importTraceLines(text.split(/\r?\n/), options);
}

/** Imports a JSONL file, reading it line by line. */
export async function importTraceFile(path: string, options: ImportOptions = {}): Promise<ImportResult> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    return await importTraceLines(lines, options);
  } finally {
    lines.close();
    input.destroy();
  }
}
