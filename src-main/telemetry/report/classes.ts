import { FINISH_REASONS } from '../timeline/schema';
import type { ReportColumns } from './columns';

/**
 * Prompt-length bands by lower edge in tokens: [0,128), [128,512), [512,2048), [2048,8192),
 * [8192,∞). Short chat, long chat, documents: classes whose TTFT is shaped by different parts.
 */
export const DEFAULT_PROMPT_BAND_EDGES: readonly number[] = [0, 128, 512, 2048, 8192];

/** The ways a report splits requests into classes. */
export type ClassDimension = 'promptBand' | 'cache' | 'model' | 'finishReason';

/**
 * Requests grouped by one dimension: `cellOf[r]` is request r's cell, `labels[c]` names cell c.
 * Built in one pass with no per-request objects.
 */
export interface ClassIndex {
  labels: string[];
  cellOf: Uint16Array;
}

/** Label of a prompt band, e.g. `128–511 tokens` or `≥8192 tokens`. */
export function bandLabel(edges: readonly number[], band: number): string {
  const lo = edges[band]!;
  const hi = edges[band + 1];
  return hi === undefined ? `≥${lo} tokens` : `${lo}–${hi - 1} tokens`;
}

/** Index of the band holding `numTokens` (edges ascending, first edge 0). */
export function bandOf(edges: readonly number[], numTokens: number): number {
  let band = 0;
  while (band + 1 < edges.length && numTokens >= edges[band + 1]!) band++;
  return band;
}

/** Groups the requests by `dimension`. */
export function classIndex(
  columns: ReportColumns,
  dimension: ClassDimension,
  bandEdges: readonly number[],
): ClassIndex {
  const n = columns.numRequests;
  const cellOf = new Uint16Array(n);
  const v = columns.values;
  switch (dimension) {
    case 'promptBand':
      for (let r = 0; r < n; r++) cellOf[r] = bandOf(bandEdges, v.numPromptTokens[r]!);
      return { labels: bandEdges.map((_, b) => bandLabel(bandEdges, b)), cellOf };
    case 'cache':
      for (let r = 0; r < n; r++) cellOf[r] = v.numCachedTokens[r]! > 0 ? 1 : 0;
      return { labels: ['uncached', 'cached'], cellOf };
    case 'finishReason':
      for (let r = 0; r < n; r++) cellOf[r] = v.finishCode[r]!;
      return { labels: [...FINISH_REASONS], cellOf };
    case 'model':
      return modelIndex(columns.modelIds, cellOf);
  }
}

function modelIndex(modelIds: readonly string[], cellOf: Uint16Array): ClassIndex {
  const cells = new Map<string, number>();
  const labels: string[] = [];
  for (let r = 0; r < modelIds.length; r++) {
    const label = modelIds[r] || '(unknown model)';
    let cell = cells.get(label);
    if (cell === undefined) {
      cell = labels.length;
      cells.set(label, cell);
      labels.push(label);
    }
    cellOf[r] = cell;
  }
  return { labels, cellOf };
}

/** How many requests (optionally only those with `include[r]`) fall in each cell. */
export function countCells(index: ClassIndex, include?: (r: number) => boolean): Uint32Array {
  const counts = new Uint32Array(index.labels.length);
  for (let r = 0; r < index.cellOf.length; r++) if (!include || include(r)) counts[index.cellOf[r]!]!++;
  return counts;
}
