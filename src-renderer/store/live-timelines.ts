import type { Timeline } from '../../src-main/telemetry/timeline/schema';

/**
 * The timeline with its instants moved onto the wall clock, durations unchanged. Its `*At`
 * stamps come from the monotonic clock of whichever process made it, and a window mixing two
 * runs of the app must still have one time axis for rates and Little's law. (At wall-clock
 * magnitudes a double keeps about 0.1 µs, far below the 1 µs the timeline invariants use.)
 */
export function onWallClock(t: Timeline): Timeline {
  const shiftMs = t.wallStartMs - t.arrivedAt;
  if (shiftMs === 0) return t;
  return {
    ...t,
    arrivedAt: t.wallStartMs,
    finishedAt: t.finishedAt + shiftMs,
    firstTokenAt: t.firstTokenAt === null ? null : t.firstTokenAt + shiftMs,
    transitions: t.transitions.map((s) => ({ state: s.state, at: s.at + shiftMs })),
  };
}
