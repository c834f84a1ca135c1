import { PART_COLORS, PART_EXPLANATIONS, PART_LABELS, PHASES } from './part-colors';
import type { TtftPhase } from './part-colors';

/**
 * One coloured layer of a stacked TTFT bar: a single part (Expert) or a plain group of parts
 * (Simple). Either set of layers covers every part exactly once, so a bar's layers sum to the
 * same TTFT whichever set draws it.
 */
export interface BarLayer {
  key: string;
  label: string;
  color: string;
  explanation: string;
  phases: readonly TtftPhase[];
}

/** Expert: every timeline part its own layer, in life order. */
export const PART_LAYERS: readonly BarLayer[] = PHASES.map((phase) => ({
  key: phase,
  label: PART_LABELS[phase],
  color: PART_COLORS[phase],
  explanation: PART_EXPLANATIONS[phase],
  phases: [phase],
}));

/** A layer's ms in one set of part values: the sum of its parts (a negative part counts 0). */
export function layerMs(layer: BarLayer, values: Partial<Record<TtftPhase, number | null>>): number {
  return layer.phases.reduce((sum, phase) => sum + Math.max(0, values[phase] ?? 0), 0);
}
