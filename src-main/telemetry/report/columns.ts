import type { FinishReason, Timeline } from '../timeline/schema';
import { FINISH_REASONS, TTFT_PARTS } from '../timeline/schema';
import { rankIndex, selectInPlace } from './nearest-rank';

/**
 * The per-request numbers a report reads, in one fixed order. The same list is the layout of
 * the packed row the store keeps beside each request, so a stored run loads as a few blobs
 * instead of 100,000 decoded rows. Append only: reordering breaks stored rows, and so would a
 * part added to TTFT_PARTS (spread here mid-list), which therefore needs a store migration;
 * test/unit/history/codec/stored-codes.test.ts pins the stored order literally.
 */
export const SCALAR_FIELDS = [
  'arrivedAt',
  'finishedAt',
  'e2eMs',
  'ttftMs',
  'clientTtftMs',
  'unattributedMs',
  ...TTFT_PARTS,
  'numPromptTokens',
  'numCachedTokens',
  'numOutputTokens',
  'isColdSlot',
  'finishCode',
  'ownItlP95Ms',
  'clientE2eMs',
  'networkInMs',
  'isRemote',
] as const;
export type ScalarField = (typeof SCALAR_FIELDS)[number];

/** Index of each scalar field in a packed row. */
export const SCALAR_INDEX = Object.fromEntries(SCALAR_FIELDS.map((f, i) => [f, i])) as Record<
  ScalarField,
  number
>;

/**
 * Column-major view of a set of timelines: one Float64Array per scalar field (NaN where a
 * value is absent: no first token, unknown client TTFT, no inter-token gap), the model of each
 * request, and every inter-token gap of every request pooled into one array.
 */
export interface ReportColumns {
  readonly numRequests: number;
  readonly values: Readonly<Record<ScalarField, Float64Array>>;
  readonly modelIds: readonly string[];
  /** Each request's id, row for row (to name requests a report singles out). */
  readonly requestIds: readonly string[];
  readonly itlGapsMs: Float64Array;
}

/** Code stored for each finish reason (its index in FINISH_REASONS). */
export function finishCode(reason: FinishReason): number {
  return FINISH_REASONS.indexOf(reason);
}

/** Finish reason for a stored code; an unknown code reads as `error`. */
export function finishReasonOf(code: number): FinishReason {
  return FINISH_REASONS[code] ?? 'error';
}

let scratch = new Float64Array(1024);

/** The request's own p95 inter-token gap by nearest rank (ms), or NaN with no gaps. */
export function ownItlP95Ms(gaps: readonly number[]): number {
  const k = gaps.length === 0 ? -1 : rankIndex(gaps.length, 0.95);
  if (k < 0) return NaN;
  // Up to 19 gaps the nearest-rank p95 is the largest: one pass, no copy.
  if (k === gaps.length - 1) {
    let max = -Infinity;
    for (let i = 0; i < gaps.length; i++) if (gaps[i]! > max) max = gaps[i]!;
    return max;
  }
  if (scratch.length < gaps.length) scratch = new Float64Array(gaps.length * 2);
  for (let i = 0; i < gaps.length; i++) scratch[i] = gaps[i]!;
  selectInPlace(scratch, 0, gaps.length - 1, k);
  return scratch[k]!;
}

/** Writes one timeline's scalars into `row` at `offset`, in SCALAR_FIELDS order. */
export function writeScalars(t: Timeline, row: Float64Array, offset: number): void {
  row[offset] = t.arrivedAt;
  row[offset + 1] = t.finishedAt;
  row[offset + 2] = t.e2eMs;
  row[offset + 3] = t.ttftMs ?? NaN;
  row[offset + 4] = t.clientTtftMs ?? NaN;
  row[offset + 5] = t.unattributedMs;
  // Named reads, in TTFT_PARTS order: a keyed read per part was the slowest line here.
  const p = t.parts;
  let i = offset + 6;
  row[i++] = p.inbox;
  row[i++] = p.route;
  row[i++] = p.slotLoad;
  row[i++] = p.queue;
  row[i++] = p.requeue;
  row[i++] = p.lostPrefill;
  row[i++] = p.activation;
  row[i++] = p.contextLookup;
  row[i++] = p.prefill;
  row[i++] = p.emit;
  row[i++] = t.numPromptTokens;
  row[i++] = t.numCachedTokens;
  row[i++] = t.numOutputTokens;
  row[i++] = t.isColdSlot ? 1 : 0;
  row[i++] = finishCode(t.finishReason);
  row[i++] = ownItlP95Ms(t.itlMs);
  row[i++] = t.clientE2eMs ?? NaN;
  row[i++] = t.networkInMs ?? NaN;
  // A remote engine served it: its TTFT is the client's, and no server TTFT is known here.
  row[i] = t.remote ? 1 : 0;
}

/** Empty columns sized for `numRequests` requests and `numGaps` pooled gaps. */
export function allocateColumns(
  numRequests: number,
  numGaps: number,
  modelIds: readonly string[],
  requestIds: readonly string[] = [],
): ReportColumns {
  const values = Object.fromEntries(SCALAR_FIELDS.map((f) => [f, new Float64Array(numRequests)])) as Record<
    ScalarField,
    Float64Array
  >;
  return { numRequests, values, modelIds, requestIds, itlGapsMs: new Float64Array(numGaps) };
}

/** The number of inter-token gaps across all the timelines. */
export function countGaps(timelines: readonly Timeline[]): number {
  let numGaps = 0;
  for (const t of timelines) numGaps += t.itlMs.length;
  return numGaps;
}

/** One pass over the timelines into columns freshly allocated for them (the caller owns them). */
export function toReportColumns(timelines: readonly Timeline[]): ReportColumns {
  const columns = allocateColumns(
    timelines.length,
    countGaps(timelines),
    timelines.map((t) => t.modelId),
    timelines.map((t) => t.requestId),
  );
  fillColumns(timelines, columns);
  return columns;
}

/** Writes the timelines into `columns`, which must have room for them and all their gaps. */
export function fillColumns(timelines: readonly Timeline[], columns: ReportColumns): void {
  const row = new Float64Array(SCALAR_FIELDS.length);
  const targets = SCALAR_FIELDS.map((f) => columns.values[f]);
  const gaps = columns.itlGapsMs;
  let gapAt = 0;
  for (let r = 0; r < timelines.length; r++) {
    const t = timelines[r]!;
    writeScalars(t, row, 0);
    for (let f = 0; f < targets.length; f++) targets[f]![r] = row[f]!;
    const itl = t.itlMs;
    for (let g = 0; g < itl.length; g++) gaps[gapAt++] = itl[g]!;
  }
}
