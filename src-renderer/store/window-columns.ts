import { SCALAR_FIELDS, writeScalars } from '../../src-main/telemetry/report/columns';
import type { ReportColumns, ScalarField } from '../../src-main/telemetry/report/columns';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';

const NUM_FIELDS = SCALAR_FIELDS.length;

/**
 * The live window in report columns, kept up to date incrementally: appending a batch writes
 * only its rows (each timeline's scalars, its own p95 ITL included, are computed once), and
 * dropping the oldest rows is one memmove per column. A recompute then reads these columns
 * through views, with no per-timeline work and no fresh allocation for the GC to collect.
 */
export class WindowColumns {
  private readonly values: Record<ScalarField, Float64Array>;
  private modelIds: string[] = [];
  private requestIds: string[] = [];
  private gaps = new Float64Array(16_384);
  private gapCounts: Uint32Array;
  private numRows = 0;
  private numGaps = 0;
  private readonly row = new Float64Array(NUM_FIELDS);

  constructor(readonly capacity: number) {
    this.values = Object.fromEntries(SCALAR_FIELDS.map((f) => [f, new Float64Array(capacity)])) as Record<
      ScalarField,
      Float64Array
    >;
    this.gapCounts = new Uint32Array(capacity);
  }

  /** Forgets everything and holds `timelines` (at most `capacity`, the newest kept). */
  replace(timelines: readonly Timeline[]): void {
    this.numRows = 0;
    this.numGaps = 0;
    this.modelIds = [];
    this.requestIds = [];
    this.appendRows(timelines.slice(-this.capacity));
  }

  /** Adds timelines at the end, dropping the oldest rows beyond capacity. */
  append(timelines: readonly Timeline[]): void {
    if (timelines.length >= this.capacity) return this.replace(timelines);
    this.dropOldest(this.numRows + timelines.length - this.capacity);
    this.appendRows(timelines);
  }

  /** Rewrites one row's scalars (its gaps and model are unchanged, e.g. a late client TTFT). */
  setRow(index: number, t: Timeline): void {
    writeScalars(t, this.row, 0);
    for (let f = 0; f < NUM_FIELDS; f++) this.values[SCALAR_FIELDS[f]!][index] = this.row[f]!;
  }

  /** The row holding `requestId` (the newest if several), or null when it is not held. */
  rowOf(requestId: string): number | null {
    const at = this.requestIds.lastIndexOf(requestId);
    return at < 0 ? null : at;
  }

  /** The held rows as report columns (views onto this object's buffers: read, do not keep). */
  columns(): ReportColumns {
    const n = this.numRows;
    const values = Object.fromEntries(SCALAR_FIELDS.map((f) => [f, this.values[f].subarray(0, n)])) as Record<
      ScalarField,
      Float64Array
    >;
    return {
      numRequests: n,
      values,
      modelIds: this.modelIds,
      requestIds: this.requestIds,
      itlGapsMs: this.gaps.subarray(0, this.numGaps),
    };
  }

  private appendRows(timelines: readonly Timeline[]): void {
    for (const t of timelines) {
      this.setRow(this.numRows, t);
      this.gapCounts[this.numRows] = t.itlMs.length;
      this.modelIds.push(t.modelId);
      this.requestIds.push(t.requestId);
      this.pushGaps(t.itlMs);
      this.numRows++;
    }
  }

  private dropOldest(count: number): void {
    if (count <= 0) return;
    let numDroppedGaps = 0;
    for (let r = 0; r < count; r++) numDroppedGaps += this.gapCounts[r]!;
    for (const f of SCALAR_FIELDS) this.values[f].copyWithin(0, count, this.numRows);
    this.gapCounts.copyWithin(0, count, this.numRows);
    this.gaps.copyWithin(0, numDroppedGaps, this.numGaps);
    this.modelIds.splice(0, count);
    this.requestIds.splice(0, count);
    this.numRows -= count;
    this.numGaps -= numDroppedGaps;
  }

  private pushGaps(gapsMs: readonly number[]): void {
    if (this.numGaps + gapsMs.length > this.gaps.length) {
      const grown = new Float64Array(Math.max(this.gaps.length * 2, this.numGaps + gapsMs.length));
      grown.set(this.gaps.subarray(0, this.numGaps));
      this.gaps = grown;
    }
    this.gaps.set(gapsMs, this.numGaps);
    this.numGaps += gapsMs.length;
  }
}
