/**
 * When the writer's flushes run. Never on the caller's stack: `soon` runs after the current
 * event-loop turn (setImmediate), `later` after a delay; tests substitute a hand-run queue.
 */
export interface FlushScheduler {
  soon(task: () => void): void;
  later(delayMs: number, task: () => void): { cancel(): void };
}

/** The real event loop. The delay timer is unref'd so pending history never keeps a CLI alive. */
export const eventLoopScheduler: FlushScheduler = {
  soon: (task) => {
    setImmediate(task);
  },
  later: (delayMs, task) => {
    const handle = setTimeout(task, delayMs);
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

/** A scheduler run by hand: tasks wait in a queue until `runAll` (for tests of the writer). */
export class ManualScheduler implements FlushScheduler {
  private readonly tasks: (() => void)[] = [];

  /** Tasks queued and not yet run. */
  get numQueued(): number {
    return this.tasks.length;
  }

  soon(task: () => void): void {
    this.tasks.push(task);
  }

  later(_delayMs: number, task: () => void): { cancel(): void } {
    let isCancelled = false;
    this.tasks.push(() => {
      if (!isCancelled) task();
    });
    return { cancel: () => (isCancelled = true) };
  }

  /** Runs queued tasks, including ones they queue, until none are left. */
  runAll(): void {
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) task();
  }
}
