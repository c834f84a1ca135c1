/**
 * When the writer's flushes run. Never on the caller's stack: `soon` runs after the current
 * event-loop turn (setImmediate), `later` after a delay; tests substitute a hand-run queue.
 */
export interface FlushTimer {
  soon(task: () => void): void;
  later(delayMs: number, task: () => void): { cancel(): void };
}

/** The real event loop. The delay timer is unref'd so pending history never keeps a CLI alive. */
export const eventLoopFlushTimer: FlushTimer = {
  soon: (task) => {
    setImmediate(task);
  },
  later: (delayMs, task) => {
    const handle = setTimeout(task, delayMs);
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
