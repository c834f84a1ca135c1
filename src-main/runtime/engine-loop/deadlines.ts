import type { Clock } from '../../telemetry/clock';

/**
 * Each request's deadline on a timer of its own (the clock's), armed at arrival: a request
 * ends at its deadline wherever it waits (tokenizing, for its slot to load, in the queue,
 * running), whether or not anything else wakes the engine loop.
 */
export class Deadlines {
  private readonly cancels = new Map<string, () => void>();

  constructor(
    private readonly clock: Clock,
    private readonly expire: (requestId: string) => void,
  ) {}

  /** Ends `requestId` at `deadlineAt` (monotonic ms) unless disarmed first. */
  arm(requestId: string, deadlineAt: number): void {
    this.disarm(requestId);
    const cancel = this.clock.callAt(deadlineAt, () => {
      this.cancels.delete(requestId);
      this.expire(requestId);
    });
    this.cancels.set(requestId, cancel);
  }

  /** The request ended some other way: its timer stops. */
  disarm(requestId: string): void {
    this.cancels.get(requestId)?.();
    this.cancels.delete(requestId);
  }

  /** Stops every timer (the loop is retired). */
  dispose(): void {
    for (const cancel of this.cancels.values()) cancel();
    this.cancels.clear();
  }
}
