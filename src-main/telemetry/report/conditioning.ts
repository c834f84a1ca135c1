import type { ReportColumns } from './columns';
import type { ClassDimension, ClassIndex } from './classes';
import { classIndex, countCells } from './classes';
import { quantilesInPlace } from './nearest-rank';
import { phaseColumnsOf, TTFT_PHASES } from './phases';
import type { TtftPhase } from './remedies';

/** Default minimum requests per cell: below 20, a nearest-rank p95 is just the maximum. */
export const DEFAULT_MIN_CELL_COUNT = 20;

/**
 * One class of requests. A cell under the minimum count keeps its count, says `isTooSmall`
 * and reports no statistics (rather than being dropped or over-read).
 */
export interface ClassCell {
  label: string;
  numRequests: number;
  isTooSmall: boolean;
  /** Requests in the cell that produced a first token (the TTFT statistics' population). */
  numWithTtft: number;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  meanTtftMs: number | null;
  e2eP95Ms: number | null;
  /** The phase with the largest mean TTFT share in this cell. */
  dominantPhase: TtftPhase | null;
}

/** The report conditioned on each class dimension; cells with no requests are omitted. */
export type Conditioning = { minCount: number } & Record<ClassDimension, ClassCell[]>;

const DIMENSIONS: readonly ClassDimension[] = ['promptBand', 'cache', 'model', 'finishReason'];

/** Every dimension's grouping of the requests, built once and shared by the report's sections. */
export type ClassIndexes = Record<ClassDimension, ClassIndex>;

/** Groups the requests by every class dimension (one pass each). */
export function classIndexes(columns: ReportColumns, bandEdges: readonly number[]): ClassIndexes {
  const out = {} as ClassIndexes;
  for (const dimension of DIMENSIONS) out[dimension] = classIndex(columns, dimension, bandEdges);
  return out;
}

/** Per-class statistics for every dimension, each an O(n) grouping plus selections per cell. */
export function conditionOn(columns: ReportColumns, minCount: number, indexes: ClassIndexes): Conditioning {
  const out = { minCount } as Conditioning;
  for (const dimension of DIMENSIONS) out[dimension] = cellsOf(columns, indexes[dimension], minCount);
  return out;
}

/** The cells of one grouping, in label order. */
function cellsOf(columns: ReportColumns, index: ClassIndex, minCount: number): ClassCell[] {
  const v = columns.values;
  const counts = countCells(index);
  const ttft = groupValues(index, counts, v.ttftMs);
  const e2e = groupValues(index, counts, v.e2eMs);
  const phaseSums = sumPhasesByCell(columns, index);
  const cells: ClassCell[] = [];
  index.labels.forEach((label, c) => {
    const numRequests = counts[c]!;
    if (numRequests === 0) return;
    const numWithTtft = ttft.lengths[c]!;
    const isTooSmall = numRequests < minCount;
    const [ttftP50, ttftP95] = isTooSmall ? [null, null] : ttft.quantiles(c, [0.5, 0.95]);
    cells.push({
      label,
      numRequests,
      isTooSmall,
      numWithTtft,
      ttftP50Ms: ttftP50 ?? null,
      ttftP95Ms: ttftP95 ?? null,
      meanTtftMs: isTooSmall || numWithTtft === 0 ? null : ttft.sums[c]! / numWithTtft,
      e2eP95Ms: isTooSmall ? null : (e2e.quantiles(c, [0.95])[0] ?? null),
      dominantPhase: isTooSmall ? null : largestPhase(phaseSums, c),
    });
  });
  return cells;
}

interface GroupedValues {
  lengths: Uint32Array;
  sums: Float64Array;
  quantiles: (cell: number, qs: readonly number[]) => (number | null)[];
}

/** Scatters the non-NaN `values` into contiguous per-cell segments (a counting sort). */
function groupValues(index: ClassIndex, counts: Uint32Array, values: Float64Array): GroupedValues {
  const starts = new Uint32Array(counts.length);
  for (let c = 1; c < counts.length; c++) starts[c] = starts[c - 1]! + counts[c - 1]!;
  const lengths = new Uint32Array(counts.length);
  const sums = new Float64Array(counts.length);
  const grouped = new Float64Array(index.cellOf.length);
  for (let r = 0; r < index.cellOf.length; r++) {
    const value = values[r]!;
    if (Number.isNaN(value)) continue;
    const c = index.cellOf[r]!;
    grouped[starts[c]! + lengths[c]!] = value;
    lengths[c]!++;
    sums[c]! += value;
  }
  const quantiles = (cell: number, qs: readonly number[]) =>
    quantilesInPlace(grouped.subarray(starts[cell]!, starts[cell]! + lengths[cell]!), lengths[cell]!, qs);
  return { lengths, sums, quantiles };
}

function sumPhasesByCell(columns: ReportColumns, index: ClassIndex): Float64Array {
  const v = columns.values;
  const width = TTFT_PHASES.length;
  const sums = new Float64Array(index.labels.length * width);
  const phaseColumns = phaseColumnsOf(columns);
  for (let r = 0; r < columns.numRequests; r++) {
    if (Number.isNaN(v.ttftMs[r]!)) continue;
    const base = index.cellOf[r]! * width;
    for (let p = 0; p < width; p++) sums[base + p]! += phaseColumns[p]![r]!;
  }
  return sums;
}

function largestPhase(sums: Float64Array, cell: number): TtftPhase | null {
  const width = TTFT_PHASES.length;
  let best: TtftPhase | null = null;
  let bestSum = 0;
  for (let p = 0; p < width; p++) {
    const sum = sums[cell * width + p]!;
    if (sum > bestSum) {
      best = TTFT_PHASES[p]!;
      bestSum = sum;
    }
  }
  return best;
}
