import type { ReportColumns } from './columns';

/** Default tolerance: L and λW may differ by 10% of the larger before the window is flagged. */
export const DEFAULT_LITTLE_TOLERANCE = 0.1;

/** An observation window on the process's monotonic clock (ms). */
export interface ObservationWindow {
  startAt: number;
  endAt: number;
}

/**
 * Little's law on a window: L (time-average number of requests in the system, from their
 * arrival → finish intervals clipped to the window) against λ·W (λ = completions in the window
 * per second, W = their mean e2e). Over the full span of a complete set the two agree by
 * construction, so a flag there means stamps and e2e disagree; on a sub-window it means the
 * interval is not steady or requests straddle its edges.
 */
export interface LittlesLaw {
  window: ObservationWindow;
  windowMs: number;
  isFullSpan: boolean;
  numCompleted: number;
  meanInSystem: number;
  completionsPerS: number;
  meanTimeInSystemMs: number | null;
  predictedInSystem: number;
  /** |L − λW| ÷ max(L, λW); 0 when both are 0. */
  relativeGap: number;
  tolerance: number;
  isConsistent: boolean;
}

/** The span of a set: earliest arrival to latest finish, or null for an empty or instant set. */
export function fullSpanOf(columns: ReportColumns): ObservationWindow | null {
  const { arrivedAt, finishedAt } = columns.values;
  let startAt = Infinity;
  let endAt = -Infinity;
  for (let r = 0; r < columns.numRequests; r++) {
    if (arrivedAt[r]! < startAt) startAt = arrivedAt[r]!;
    if (finishedAt[r]! > endAt) endAt = finishedAt[r]!;
  }
  return endAt > startAt ? { startAt, endAt } : null;
}

/** Checks Little's law over `window` (positive length) with the given relative tolerance. */
export function littlesLaw(
  columns: ReportColumns,
  window: ObservationWindow,
  tolerance: number,
  isFullSpan: boolean,
): LittlesLaw {
  const { arrivedAt, finishedAt, e2eMs } = columns.values;
  const windowMs = window.endAt - window.startAt;
  let busyMs = 0;
  let numCompleted = 0;
  let sumE2eMs = 0;
  for (let r = 0; r < columns.numRequests; r++) {
    const overlapMs = Math.min(finishedAt[r]!, window.endAt) - Math.max(arrivedAt[r]!, window.startAt);
    if (overlapMs > 0) busyMs += overlapMs;
    if (finishedAt[r]! >= window.startAt && finishedAt[r]! <= window.endAt) {
      numCompleted++;
      sumE2eMs += e2eMs[r]!;
    }
  }
  const meanInSystem = busyMs / windowMs;
  const completionsPerS = (numCompleted * 1000) / windowMs;
  const meanTimeInSystemMs = numCompleted === 0 ? null : sumE2eMs / numCompleted;
  const predictedInSystem = (completionsPerS * (meanTimeInSystemMs ?? 0)) / 1000;
  const larger = Math.max(meanInSystem, predictedInSystem);
  const relativeGap = larger === 0 ? 0 : Math.abs(meanInSystem - predictedInSystem) / larger;
  return {
    window,
    windowMs,
    isFullSpan,
    numCompleted,
    meanInSystem,
    completionsPerS,
    meanTimeInSystemMs,
    predictedInSystem,
    relativeGap,
    tolerance,
    isConsistent: relativeGap <= tolerance,
  };
}
