/** A throttled task: `schedule()` runs it soon, at most once per interval. */
export interface Throttle {
  schedule(): void;
  /** Runs now if something is scheduled (tests, view switches). */
  flush(): void;
  cancel(): void;
}

/**
 * Leading-edge throttle: the first request after a quiet spell runs on the next tick; later
 * ones fold into one run at the end of the interval. Keeps the dashboard at ≤ 1000/interval
 * recomputes per second however fast events arrive.
 */
export function createThrottle(run: () => void, intervalMs: number): Throttle {
  let lastRunAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const fire = () => {
    timer = null;
    lastRunAt = performance.now();
    run();
  };
  return {
    schedule() {
      if (timer !== null) return;
      timer = setTimeout(fire, Math.max(0, lastRunAt + intervalMs - performance.now()));
    },
    flush() {
      if (timer === null) return;
      clearTimeout(timer);
      fire();
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
