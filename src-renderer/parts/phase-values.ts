import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { PHASES } from './part-colors';
import type { TtftPhase } from './part-colors';

/** One phase's share of a TTFT: its ms and its fraction of the whole (0..1). */
export interface PhaseSlice {
  phase: TtftPhase;
  ms: number;
  share: number;
}

/** A timeline's phases in ms, `unattributed` included. */
export function phasesOf(timeline: Pick<Timeline, 'parts' | 'unattributedMs'>): Record<TtftPhase, number> {
  return { ...timeline.parts, unattributed: timeline.unattributedMs };
}

/**
 * The non-zero phases of a TTFT with their shares of the total. The total is the sum of the
 * phases (which equals server TTFT by the timeline's invariant), so widths always add to 100%.
 */
export function slicesOf(values: Partial<Record<TtftPhase, number | null>>): PhaseSlice[] {
  let totalMs = 0;
  for (const phase of PHASES) totalMs += Math.max(0, values[phase] ?? 0);
  if (totalMs <= 0) return [];
  const slices: PhaseSlice[] = [];
  for (const phase of PHASES) {
    const ms = Math.max(0, values[phase] ?? 0);
    if (ms > 0) slices.push({ phase, ms, share: ms / totalMs });
  }
  return slices;
}
