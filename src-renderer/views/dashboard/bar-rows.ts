import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { PART_LAYERS, layerMs } from '../../parts/bar-layers';
import { PHASES } from '../../parts/part-colors';
import { phasesOf } from '../../parts/phase-values';
import type { TtftPhase } from '../../../src-main/telemetry/report/remedies';
import type { BarLayer } from '../../parts/bar-layers';

/** One drawn bar: a request's phases and their total (its server TTFT). */
export interface BarRow {
  index: number;
  requestId: string;
  /** When the request arrived (wall clock, epoch ms): the x axis labels. */
  wallStartMs: number;
  phasesMs: Record<TtftPhase, number>;
  totalMs: number;
}

/** Where the bars go: x of bar i's centre, the distance between centres, and y of a value. */
export interface BarGeometry {
  centerX(index: number): number;
  slotWidth: number;
  y(valueMs: number): number;
}

/** Bars for the requests that produced a first token, oldest first. */
export function barRows(timelines: readonly Timeline[]): BarRow[] {
  const rows: BarRow[] = [];
  for (const t of timelines) {
    if (t.ttftMs === null) continue;
    const phasesMs = phasesOf(t);
    let totalMs = 0;
    for (const phase of PHASES) totalMs += Math.max(0, phasesMs[phase]);
    rows.push({ index: rows.length, requestId: t.requestId, wallStartMs: t.wallStartMs, phasesMs, totalMs });
  }
  return rows;
}

/**
 * One SVG path per layer (a part, or a Simple group of parts) holding that layer's segment of
 * every bar, stacked in the layers' order: one DOM node per layer for 200 bars instead of one
 * per segment (a live chart redrawn 4×/s must stay cheap). The layers cover every part once,
 * so each bar reaches its row's total either way.
 */
export function stackedPaths(
  rows: readonly BarRow[],
  geometry: BarGeometry,
  layers: readonly BarLayer[] = PART_LAYERS,
): Record<string, string> {
  const paths: Record<string, string> = Object.fromEntries(layers.map((l) => [l.key, '']));
  const barWidth = Math.max(1, geometry.slotWidth * 0.8);
  for (const row of rows) {
    const left = (geometry.centerX(row.index) - barWidth / 2).toFixed(2);
    let baseMs = 0;
    for (const layer of layers) {
      const ms = layerMs(layer, row.phasesMs);
      if (ms === 0) continue;
      const bottom = geometry.y(baseMs);
      const top = geometry.y(baseMs + ms);
      paths[layer.key] +=
        `M${left},${top.toFixed(2)}h${barWidth.toFixed(2)}V${bottom.toFixed(2)}h${(-barWidth).toFixed(2)}Z`;
      baseMs += ms;
    }
  }
  return paths;
}

/** A round upper bound for the y axis (1, 2 or 5 × a power of ten). */
export function niceCeil(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

/** Up to `maxTicks` evenly spaced whole indices from 0 to count − 1, both ends included. */
export function indexTicks(count: number, maxTicks = 6): number[] {
  if (count <= 0) return [];
  if (count <= maxTicks) return Array.from({ length: count }, (_, i) => i);
  const step = (count - 1) / (maxTicks - 1);
  return [...new Set(Array.from({ length: maxTicks }, (_, i) => Math.round(i * step)))];
}

/** Four equal steps from 0 to a round top: y ticks that never crowd. */
export function valueTicks(topMs: number): number[] {
  return [0, 1, 2, 3, 4].map((i) => (topMs * i) / 4);
}
