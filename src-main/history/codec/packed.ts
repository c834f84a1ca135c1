import { endianness } from 'node:os';
import type { ReportColumns } from '../../telemetry/report/columns';
import { allocateColumns, SCALAR_FIELDS, writeScalars } from '../../telemetry/report/columns';
import type { Timeline, Transition } from '../../telemetry/timeline/schema';
import { readTransitions, TRANSITION_WIDTH, writeTransitions } from './transitions';

/**
 * Packed float64 blobs stored beside each request row. better-sqlite3 spends a few µs decoding
 * each row it hands to JavaScript (hundreds of ms for 100,000 rows here); these blobs let SQLite
 * concatenate a whole run into two buffers that become typed arrays directly. The store bench
 * judges the full report against a bare scan of the same blobs (`report_over_bare_scan` ≤ 2.0),
 * not against an absolute time.
 * The third, a row's transitions, is packed for the writer's sake: it is cheaper to fill than
 * JSON text, and only whole timelines read it back.
 * Byte order is the platform's, checked to be little-endian (every platform Electron ships on).
 */
if (endianness() !== 'LE')
  throw new Error('the store packs float64 little-endian and needs a little-endian CPU');

const ROW_WIDTH = SCALAR_FIELDS.length;
/** Bytes in one packed report row. */
export const REPORT_ROW_BYTES = ROW_WIDTH * 8;

/**
 * A timeline's three packed blobs: its report scalars, its inter-token gaps (ms) and its
 * transitions (see transitions.ts).
 */
export interface PackedTimeline {
  scalars: Uint8Array;
  gaps: Uint8Array;
  transitions: Uint8Array;
}

/** float64 values a timeline's blobs take together. */
function numValues(t: Timeline): number {
  return ROW_WIDTH + t.itlMs.length + TRANSITION_WIDTH * t.transitions.length;
}

/** Writes the three blobs' values one after the other into `values` (numValues(t) of them). */
function writeAll(t: Timeline, values: Float64Array): void {
  writeScalars(t, values, 0);
  values.set(t.itlMs, ROW_WIDTH);
  writeTransitions(t.transitions, values, ROW_WIDTH + t.itlMs.length);
}

/** The three blobs as views on the values writeAll wrote into `buffer`. */
function viewsOf(t: Timeline, buffer: ArrayBufferLike, scalars: Uint8Array): PackedTimeline {
  const gapsBytes = t.itlMs.length * 8;
  return {
    scalars,
    gaps: new Uint8Array(buffer, REPORT_ROW_BYTES, gapsBytes),
    transitions: new Uint8Array(
      buffer,
      REPORT_ROW_BYTES + gapsBytes,
      t.transitions.length * TRANSITION_WIDTH * 8,
    ),
  };
}

/** Packs the blobs into one allocation (three views), since every stored row needs them all. */
export function packTimeline(t: Timeline): PackedTimeline {
  const all = new Float64Array(numValues(t));
  writeAll(t, all);
  return viewsOf(t, all.buffer, new Uint8Array(all.buffer, 0, REPORT_ROW_BYTES));
}

/**
 * Packs timelines into one reused buffer (grown when a timeline has more values than it holds):
 * each result is overwritten by the next `pack`. For writers that bind the blobs at once;
 * an allocation per row was a third of the history writer's encoding time.
 */
export class PackScratch {
  private values = new Float64Array(ROW_WIDTH + 256 + TRANSITION_WIDTH * 32);
  private scalars = new Uint8Array(this.values.buffer, 0, REPORT_ROW_BYTES);

  /** The timeline's blobs as views on the scratch, valid until the next call. */
  pack(t: Timeline): PackedTimeline {
    const needed = numValues(t);
    if (this.values.length < needed) {
      this.values = new Float64Array(2 * needed);
      this.scalars = new Uint8Array(this.values.buffer, 0, REPORT_ROW_BYTES);
    }
    writeAll(t, this.values);
    return viewsOf(t, this.values.buffer, this.scalars);
  }
}

/** Inter-token gaps (ms) back from their blob. */
export function unpackGaps(blob: Buffer): number[] {
  return Array.from(asFloat64(blob));
}

/** Transitions back from their blob. */
export function unpackTransitions(blob: Buffer): Transition[] {
  return readTransitions(asFloat64(blob));
}

/**
 * Report columns from concatenated blobs: `scalars` holds one packed row per request, `gaps`
 * every request's gaps in the same order, `modelIds` and `requestIds` each request's model and id.
 */
export function unpackColumns(
  scalars: Buffer | null,
  gaps: Buffer | null,
  modelIds: readonly string[],
  requestIds: readonly string[],
): ReportColumns {
  const rows = scalars ? asFloat64(scalars) : new Float64Array(0);
  const numRequests = rows.length / ROW_WIDTH;
  if (!Number.isInteger(numRequests) || numRequests !== modelIds.length)
    throw new Error(
      `packed report rows do not line up: ${rows.length} values for ${modelIds.length} requests`,
    );
  const pooled = gaps ? asFloat64(gaps) : new Float64Array(0);
  const columns = allocateColumns(numRequests, 0, modelIds, requestIds);
  const targets = SCALAR_FIELDS.map((f) => columns.values[f]);
  for (let f = 0; f < ROW_WIDTH; f++) {
    const target = targets[f]!;
    for (let r = 0, offset = f; r < numRequests; r++, offset += ROW_WIDTH) target[r] = rows[offset]!;
  }
  return { ...columns, itlGapsMs: pooled };
}

/** A float64 view of a blob, copied only when the blob is not 8-byte aligned. */
function asFloat64(blob: Buffer): Float64Array {
  if (blob.length % 8 !== 0) throw new Error(`a float64 blob of ${blob.length} bytes`);
  if (blob.byteOffset % 8 === 0) return new Float64Array(blob.buffer, blob.byteOffset, blob.length / 8);
  const copy = new Float64Array(blob.length / 8);
  new Uint8Array(copy.buffer).set(blob);
  return copy;
}
