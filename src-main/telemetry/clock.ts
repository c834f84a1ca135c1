/**
 * One monotonic clock for the whole process. `performance.timeOrigin + performance.now()`
 * lines up stamps taken in worker threads with the main thread's (each thread has its own
 * `performance` origin); values are ms and mean nothing outside this process.
 */
export interface Clock {
  /** Monotonic instant in ms, comparable across threads of this process only. */
  now(): number;
  /** Wall-clock epoch ms, used only as a storage anchor, never for durations. */
  wallNow(): number;
}

/** The real clock: process-aligned monotonic ms plus the wall-clock anchor. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  wallNow: () => Date.now(),
};

/** A clock moved by hand, for timeline arithmetic in tests. */
export class ManualClock implements Clock {
  constructor(
    private atMs = 1_000,
    private wallMs = 1_700_000_000_000,
  ) {}
  now(): number {
    return this.atMs;
  }
  wallNow(): number {
    return this.wallMs;
  }
  /** Moves both clocks forward by `ms` (never backward: a monotonic clock cannot). */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a monotonic clock cannot move backward');
    this.atMs += ms;
    this.wallMs += ms;
  }
}
