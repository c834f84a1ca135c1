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
  /**
   * Calls `fire` once, as soon as `now()` has reached `atMs` (never before); returns the
   * function that cancels it. The timer does not keep the process alive.
   */
  callAt(atMs: number, fire: () => void): () => void;
}

/** The real clock: process-aligned monotonic ms plus the wall-clock anchor. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  wallNow: () => Date.now(),
  callAt(atMs, fire) {
    let timer: ReturnType<typeof setTimeout>;
    // Node's timers count whole milliseconds of their own clock: one may come a fraction of a
    // millisecond early on this one, and then waits out the rest.
    const arm = (delayMs: number) => {
      timer = setTimeout(() => {
        const leftMs = atMs - systemClock.now();
        if (leftMs > 0) arm(Math.ceil(leftMs));
        else fire();
      }, delayMs);
      // A Node timer would keep the process alive (a browser's has no unref).
      (timer as { unref?: () => void }).unref?.();
    };
    arm(Math.max(0, Math.ceil(atMs - systemClock.now())));
    return () => clearTimeout(timer);
  },
};

/** A clock moved by hand, for timeline arithmetic in tests; its timers fire when it is moved past them. */
export class ManualClock implements Clock {
  private readonly timers = new Set<{ atMs: number; fire: () => void }>();

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
  /**
   * Timers due now fire in a microtask (never inside the code that moved the clock, as a real
   * timer never runs inside synchronous code), earliest first.
   */
  callAt(atMs: number, fire: () => void): () => void {
    const timer = { atMs, fire };
    this.timers.add(timer);
    this.fireDue();
    return () => this.timers.delete(timer);
  }
  /** Moves both clocks forward by `ms` (never backward: a monotonic clock cannot). */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a monotonic clock cannot move backward');
    this.atMs += ms;
    this.wallMs += ms;
    this.fireDue();
  }
  private fireDue(): void {
    const due = [...this.timers].filter((t) => t.atMs <= this.atMs).sort((a, b) => a.atMs - b.atMs);
    if (due.length === 0) return;
    queueMicrotask(() => {
      for (const timer of due) if (this.timers.delete(timer)) timer.fire();
    });
  }
}
