import { endianness } from 'node:os';
import type { ReportColumns } from '../../telemetry/report';
import { allocateColumns, SCALAR_FIELDS, writeScalars } from '../../telemetry/report';
import type { Timeline } from '../../telemetry/timeline';

/**
 * Packed float64 blobs stored beside each request row. better-sqlite3 spends a few µs decoding
 * each row, so 100,000 rows cannot be read one by one inside the report's 200 ms budget; these
 * blobs let SQLite concatenate a whole run into two buffers that become typed arrays directly.
 * Byte order is the platform's, checked to be little-endian (every platform Electron ships on).
 */
if (endianness() !== 'LE')
  throw new Error('the store packs float64 little-endian and needs a little-endian CPU');

const ROW_WIDTH = SCALAR_FIELDS.length;
/** Bytes in one packed report row. */
export const REPORT_ROW_BYTES = ROW_WIDTH * 8;

/** A timeline's two packed blobs: its report scalars and its inter-token gaps (ms). */
export interface PackedTimeline {
  scalars: Uint8Array;
  gaps: Uint8Array;
}

/** Packs both blobs into one allocation (two views), since every stored row needs both. */
export function packTimeline(t: Timeline): PackedTimeline {
  const all = new Float64Array(ROW_WIDTH + t.itlMs.length);
  writeScalars(t, all, 0);
  all.set(t.itlMs, ROW_WIDTH);
  const bytes = Buffer.from(all.buffer);
  return { scalars: bytes.subarray(0, REPORT_ROW_BYTES), gaps: bytes.subarray(REPORT_ROW_BYTES) };
}

/**
 * Packs timelines into one reused buffer (grown when a timeline has more gaps than it holds):
 * each result is overwritten by the next `pack`. For writers that bind the blobs at once;
 * an allocation per row was a third of the history writer's encoding time.
 */
export class PackScratch {
  private values = new Float64Array(ROW_WIDTH + 256);
  private scalars = new Uint8Array(this.values.buffer, 0, REPORT_ROW_BYTES);

  /** The timeline's blobs as views on the scratch, valid until the next call. */
  pack(t: Timeline): PackedTimeline {
    const gaps = t.itlMs;
    if (this.values.length < ROW_WIDTH + gaps.length) {
      this.values = new Float64Array(2 * (ROW_WIDTH + gaps.length));
      this.scalars = new Uint8Array(this.values.buffer, 0, REPORT_ROW_BYTES);
    }
    writeScalars(t, this.values, 0);
    this.values.set(gaps, ROW_WIDTH);
    return {
      scalars: this.scalars,
      gaps: new Uint8Array(this.values.buffer, REPORT_ROW_BYTES, gaps.length * 8),
    };
  }
}

/** Inter-token gaps (ms) back from their blob. */
export function unpackGaps(blob: Buffer): number[] {
  return Array.from(asFloat64(blob));
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
    for (let r = 0, at = f; r < numRequests; r++, at += ROW_WIDTH) target[r] = rows[at]!;
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
