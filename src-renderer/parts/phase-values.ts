import { deriveBarParts } from '../../src-main/telemetry/timeline/derive';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { BAR_PHASES } from './part-colors';
import type { BarPhase, TtftPhase } from './part-colors';

/** One phase's share of a TTFT: its ms and its fraction of the whole (0..1). */
export interface PhaseSlice {
  phase: BarPhase;
  ms: number;
  share: number;
}

/** A timeline's phases in ms, `unattributed` included. */
export function phasesOf(timeline: Pick<Timeline, 'parts' | 'unattributedMs'>): Record<TtftPhase, number> {
  return { ...timeline.parts, unattributed: timeline.unattributedMs };
}

/** An answer's bar phases in ms: phasesOf with its disk read its own phase, cut from queue. */
export function barPhasesOf(
  timeline: Pick<Timeline, 'parts' | 'unattributedMs' | 'diagnosis'>,
): Record<BarPhase, number> {
  return {
    ...deriveBarParts(timeline.parts, timeline.diagnosis?.diskRead),
    unattributed: timeline.unattributedMs,
  };
}

/**
 * The non-zero phases of a TTFT with their shares of the total. The total is the sum of the
 * phases (which equals server TTFT by the timeline's invariant), so widths always add to 100%.
 */
export function slicesOf(values: Partial<Record<BarPhase, number | null>>): PhaseSlice[] {
  let totalMs = 0;
  for (const phase of BAR_PHASES) totalMs += Math.max(0, values[phase] ?? 0);
  if (totalMs <= 0) return [];
  const slices: PhaseSlice[] = [];
  for (const phase of BAR_PHASES) {
    const ms = Math.max(0, values[phase] ?? 0);
    if (ms > 0) slices.push({ phase, ms, share: ms / totalMs });
  }
  return slices;
}
