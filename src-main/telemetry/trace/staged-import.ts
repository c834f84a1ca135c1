import { TRACE_LIMITS } from '../../limits';
import { buildReportFromColumns } from '../report/build-report';
import type { ReportColumns, ScalarField } from '../report/columns';
import { SCALAR_FIELDS, writeScalars } from '../report/columns';
import type { LatencyReport } from '../report/types';
import type { Timeline } from '../timeline/schema';
import { GapPool } from './gap-pool';
import { parseTraceLine } from './parse-line';

/** Typed arrays start this long and double, so a small import allocates little. */
const MIN_CAPACITY = 1_024;

/** What a staged import holds between reading and committing, for its memory budget. */
export interface RetainedState {
  /** Parsed timeline objects held (always 0: that is the point of staging). */
  numTimelines: number;
  /** Accepted lines kept as text, to be parsed again at commit. */
  numLines: number;
  /** Characters of those lines. */
  numLineChars: number;
  /** Inter-token gaps pooled for the report (GapPool: held as far fewer values when they repeat). */
  numGaps: number;
  /**
   * Upper bound on the bytes all of it takes, gaps included: text at 2 bytes a character, arrays
   * at capacity. It follows the characters read, never the token counts lines claim, so the
   * import budget's count of file bytes bounds it (TRACE_LIMITS.maxBytesInFlight).
   */
  numBytes: number;
}

/**
 * The accepted lines of one import between reading and committing, held compactly: each line's
 * text (parsed again, under its run, when committed) and the report's columns grown as lines
 * arrive, instead of every parsed timeline with its gaps as JS objects (about ten times the
 * file: six 62 MB uploads peaked at 3 GB of RSS that way). Parsing is deterministic, so a
 * committed timeline equals the one the report counted.
 */
export class StagedImport {
  private lines: string[] = [];
  private numLineChars = 0;
  private numRows = 0;
  private rowCapacity = MIN_CAPACITY;
  private scalars = SCALAR_FIELDS.map(() => new Float64Array(MIN_CAPACITY));
  private readonly gaps = new GapPool();
  private readonly modelIds: string[] = [];
  private readonly requestIds: string[] = [];
  private readonly internedModelIds = new Map<string, string>();
  private readonly row = new Float64Array(SCALAR_FIELDS.length);
  private numSent = 0;

  /** Keeps one accepted timeline's figures and the line it came from (a TimelineSink). */
  add(timeline: Timeline, text: string): void {
    this.lines.push(text);
    this.numLineChars += text.length;
    if (this.numRows === this.rowCapacity) this.growRows();
    writeScalars(timeline, this.row, 0);
    for (let f = 0; f < this.scalars.length; f++) this.scalars[f]![this.numRows] = this.row[f]!;
    this.numRows++;
    this.gaps.add(timeline.itlMs);
    this.modelIds.push(this.intern(timeline.modelId));
    this.requestIds.push(timeline.requestId);
  }

  /** The report over every staged timeline; null when none was staged. */
  report(): LatencyReport | null {
    if (this.numRows === 0) return null;
    return { ...buildReportFromColumns(this.columns()), itl: this.gaps.distribution() };
  }

  /**
   * The next timelines, parsed again under `runId`: up to `TRACE_LIMITS.batchSize` of them, and
   * no more once they hold `maxGaps` gaps (a seed record's claimed tokens become gaps here, a
   * million for 300 characters); [] when all are sent.
   */
  nextBatch(runId: string | null, maxGaps: number = TRACE_LIMITS.batchGaps): Timeline[] {
    const end = Math.min(this.lines.length, this.numSent + TRACE_LIMITS.batchSize);
    const batch: Timeline[] = [];
    let numGaps = 0;
    for (; this.numSent < end && numGaps < maxGaps; this.numSent++) {
      const parsed = parseTraceLine(this.lines[this.numSent]!, runId);
      if (!('timeline' in parsed)) throw new Error(`a staged line no longer parses: ${parsed.reason}`);
      this.lines[this.numSent] = '';
      batch.push(parsed.timeline);
      numGaps += parsed.timeline.itlMs.length;
    }
    return batch;
  }

  /** Drops everything staged. */
  clear(): void {
    this.lines = [];
    this.numLineChars = 0;
    this.scalars = [];
    this.gaps.clear();
  }

  /** What this import holds now (see RetainedState). */
  retained(): RetainedState {
    const numArrayBytes = this.scalars.length * this.rowCapacity * 8 + this.gaps.numBytes;
    return {
      numTimelines: 0,
      numLines: this.lines.length,
      numLineChars: this.numLineChars,
      numGaps: this.gaps.numGaps,
      numBytes: this.numLineChars * 2 + numArrayBytes,
    };
  }

  private columns(): ReportColumns {
    const values = Object.fromEntries(
      SCALAR_FIELDS.map((f, i) => [f, this.scalars[i]!.subarray(0, this.numRows)]),
    ) as Record<ScalarField, Float64Array>;
    return {
      numRequests: this.numRows,
      values,
      modelIds: this.modelIds,
      requestIds: this.requestIds,
      // The gaps' distribution comes from the pool (report): none are listed one by one.
      itlGapsMs: new Float64Array(0),
    };
  }

  private growRows(): void {
    this.rowCapacity *= 2;
    this.scalars = this.scalars.map((column) => grown(column, this.rowCapacity));
  }

  // JSON.parse makes a fresh string per line; a trace names few models, so keep one of each.
  private intern(modelId: string): string {
    const known = this.internedModelIds.get(modelId);
    if (known !== undefined) return known;
    this.internedModelIds.set(modelId, modelId);
    return modelId;
  }
}

function grown(array: Float64Array, capacity: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(capacity);
  next.set(array);
  return next;
}
