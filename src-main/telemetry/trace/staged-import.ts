import { TRACE_LIMITS } from '../../limits';
import { buildReportFromColumns } from '../report/build-report';
import type { ReportColumns, ScalarField } from '../report/columns';
import { SCALAR_FIELDS, writeScalars } from '../report/columns';
import type { LatencyReport } from '../report/types';
import type { Timeline } from '../timeline/schema';
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
  /** Inter-token gaps pooled for the report. */
  numGaps: number;
  /** Upper bound on the bytes all of it takes: text at 2 bytes a character, arrays at capacity. */
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
  private gaps = new Float64Array(MIN_CAPACITY);
  private numGaps = 0;
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
    this.addGaps(timeline.itlMs);
    this.modelIds.push(this.intern(timeline.modelId));
    this.requestIds.push(timeline.requestId);
  }

  /** The report over every staged timeline; null when none was staged. */
  report(): LatencyReport | null {
    return this.numRows === 0 ? null : buildReportFromColumns(this.columns());
  }

  /** The next `TRACE_LIMITS.batchSize` timelines, parsed again under `runId`; [] when all are sent. */
  nextBatch(runId: string | null): Timeline[] {
    const end = Math.min(this.lines.length, this.numSent + TRACE_LIMITS.batchSize);
    const batch: Timeline[] = [];
    for (; this.numSent < end; this.numSent++) {
      const parsed = parseTraceLine(this.lines[this.numSent]!, runId);
      if (!('timeline' in parsed)) throw new Error(`a staged line no longer parses: ${parsed.reason}`);
      this.lines[this.numSent] = '';
      batch.push(parsed.timeline);
    }
    return batch;
  }

  /** Drops everything staged. */
  clear(): void {
    this.lines = [];
    this.numLineChars = 0;
    this.scalars = [];
    this.gaps = new Float64Array(0);
  }

  /** What this import holds now (see RetainedState). */
  retained(): RetainedState {
    const numArrayBytes = (this.scalars.length * this.rowCapacity + this.gaps.length) * 8;
    return {
      numTimelines: 0,
      numLines: this.lines.length,
      numLineChars: this.numLineChars,
      numGaps: this.numGaps,
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
      itlGapsMs: this.gaps.subarray(0, this.numGaps),
    };
  }

  private growRows(): void {
    this.rowCapacity *= 2;
    this.scalars = this.scalars.map((column) => grown(column, this.rowCapacity));
  }

  private addGaps(itlMs: readonly number[]): void {
    const needed = this.numGaps + itlMs.length;
    // Doubling, but never past the import's gap cap (TraceImport rejects lines beyond it).
    if (needed > this.gaps.length)
      this.gaps = grown(
        this.gaps,
        Math.max(needed, Math.min(this.gaps.length * 2, TRACE_LIMITS.maxTotalGaps)),
      );
    for (let g = 0; g < itlMs.length; g++) this.gaps[this.numGaps++] = itlMs[g]!;
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
