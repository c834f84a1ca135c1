import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { TRACE_LIMITS } from '../../limits';
import type { Timeline } from '../timeline/schema';
import type { SplitLine } from './line-splitter';
import { LineSplitter } from './line-splitter';
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
 * What an import produced: the timelines, how many non-blank lines it read, and the lines it
 * skipped with their reasons (only with skipBadLines; otherwise the first bad line throws).
 * `rejected` lists the first TRACE_LIMITS.maxListedRejections; `numRejected` counts them all.
 */
export interface ImportResult {
  timelines: Timeline[];
  numLines: number;
  numImported: number;
  rejected: RejectedLine[];
  numRejected: number;
}

/** Takes each accepted timeline with the line it came from, instead of the result holding it. */
export type TimelineSink = (timeline: Timeline, text: string) => void;

/**
 * One import, line by line, within the limits of limits.ts: blank lines are ignored, a bad
 * line is rejected with its number and reason (or throws TraceImportError without
 * skipBadLines), and lines past the line cap or the in-memory gap cap are rejected as such —
 * never dropped silently, never allowed to exhaust memory. With a `sink`, accepted timelines go
 * there and `finish().timelines` stays empty (the worker keeps them compactly; staged-import.ts).
 */
export class TraceImport {
  private readonly result: ImportResult = {
    timelines: [],
    numLines: 0,
    numImported: 0,
    rejected: [],
    numRejected: 0,
  };
  private numGaps = 0;

  constructor(
    private readonly options: ImportOptions = {},
    private readonly sink: TimelineSink | null = null,
  ) {}

  /** Reads one line (from LineSplitter, or numbered by the caller). */
  add(split: SplitLine): void {
    if ('text' in split && split.text.trim() === '') return;
    this.result.numLines++;
    if ('numCharsOver' in split)
      return this.reject(
        split.line,
        `line is longer than ${split.numCharsOver.toLocaleString('en-US')} characters`,
      );
    if (this.result.numLines > TRACE_LIMITS.maxLines)
      return this.reject(
        split.line,
        `an import holds at most ${TRACE_LIMITS.maxLines.toLocaleString('en-US')} lines`,
      );
    const parsed = parseTraceLine(split.text, this.options.runId ?? null);
    if (!('timeline' in parsed)) return this.reject(split.line, parsed.reason);
    const numGaps = parsed.timeline.itlMs.length;
    if (this.numGaps + numGaps > TRACE_LIMITS.maxTotalGaps)
      return this.reject(
        split.line,
        `an import holds at most ${TRACE_LIMITS.maxTotalGaps.toLocaleString('en-US')} inter-token gaps in memory; split the file`,
      );
    this.numGaps += numGaps;
    if (this.sink) this.sink(parsed.timeline, split.text);
    else this.result.timelines.push(parsed.timeline);
    this.result.numImported++;
  }

  /** Everything read so far. */
  finish(): ImportResult {
    return this.result;
  }

  private reject(line: number, reason: string): void {
    if (!this.options.skipBadLines) throw new TraceImportError(line, reason);
    this.result.numRejected++;
    if (this.result.rejected.length < TRACE_LIMITS.maxListedRejections)
      this.result.rejected.push({ line, reason });
  }
}

/**
 * Imports JSONL lines already split (seed 003 records or our own timelines, mixed freely),
 * numbered from 1. A bad line throws TraceImportError with its number and reason unless
 * `skipBadLines` is set, in which case it is counted and listed.
 */
export async function importTraceLines(
  lines: Iterable<string> | AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const importer = new TraceImport(options);
  let line = 0;
  for await (const text of lines) {
    line++;
    importer.add(
      text.length > TRACE_LIMITS.maxLineChars
        ? { line, numCharsOver: TRACE_LIMITS.maxLineChars }
        : { line, text },
    );
  }
  return importer.finish();
}

/** Imports a JSONL stream in text chunks of any size (a UTF-8 BOM and CRLF line ends are fine). */
export async function importTraceChunks(
  chunks: Iterable<string> | AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const importer = new TraceImport(options);
  const splitter = new LineSplitter(TRACE_LIMITS.maxLineChars);
  for await (const chunk of chunks) for (const line of splitter.push(chunk)) importer.add(line);
  for (const line of splitter.end()) importer.add(line);
  return importer.finish();
}

/** Imports JSONL text (a whole file already in memory). */
export function importTraceText(text: string, options: ImportOptions = {}): Promise<ImportResult> {
  return importTraceChunks([text], options);
}

/** The file is larger than an import accepts. */
export class TraceFileTooLarge extends Error {
  constructor(
    readonly numBytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `the file is ${numBytes.toLocaleString('en-US')} bytes; a trace import takes at most ${maxBytes.toLocaleString('en-US')}`,
    );
    this.name = 'TraceFileTooLarge';
  }
}

/** Imports a JSONL file, reading it in chunks; refuses a file over TRACE_LIMITS.maxFileBytes. */
export async function importTraceFile(path: string, options: ImportOptions = {}): Promise<ImportResult> {
  const { size } = await stat(path);
  if (size > TRACE_LIMITS.maxFileBytes) throw new TraceFileTooLarge(size, TRACE_LIMITS.maxFileBytes);
  const input = createReadStream(path, { encoding: 'utf8' });
  try {
    return await importTraceChunks(input as AsyncIterable<string>, options);
  } finally {
    input.destroy();
  }
}
