import type { FlushTimer } from '../../../src-main/history/writer/flush-timer';

/** A flush timer run by hand: tasks wait in a queue until `runAll` (for tests of the writer). */
export class ManualFlushTimer implements FlushTimer {
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

  /** Runs the oldest queued task only (a test can look between turns of the "event loop"). */
  runOne(): void {
    this.tasks.shift()?.();
  }

  /** Runs queued tasks, including ones they queue, until none are left. */
  runAll(): void {
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) task();
  }
}
