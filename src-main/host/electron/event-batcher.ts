import type { PushedEvent } from '../../service/contract/events';

// Batches pushed events for the renderer so a fast token stream cannot flood it: at most one
// send per interval, each send capped in size, consecutive text chunks of one request merged.
// Nothing is dropped and each request's events keep their order. After a quiet spell the next
// event goes out at once (on the next timer tick), so batching adds no delay to a first chunk:
// the renderer stamps that arrival as the client side of TTFT.

/** Timers and clock, injectable so tests drive time by hand. */
export interface BatcherClock {
  /** Monotonic milliseconds. */
  nowMs(): number;
  setTimer(callback: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

/** Tuning and the sink; `send` receives each batch, oldest event first. */
export interface BatcherOptions {
  send(batch: PushedEvent[]): void;
  /** Minimum spacing between two sends (ms). */
  intervalMs?: number;
  /** Most events in one send; a longer backlog goes out over the following intervals. */
  maxBatchSize?: number;
  clock?: BatcherClock;
}

/** Defaults: 50 ms spacing (20 sends/s), 256 events per send. */
export const DEFAULT_BATCH_INTERVAL_MS = 50;
export const DEFAULT_MAX_BATCH_SIZE = 256;

const realClock: BatcherClock = {
  nowMs: () => performance.now(),
  setTimer: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The request an event belongs to, if any (queued, chunk, done). */
function requestIdOf(event: PushedEvent): string | null {
  const payload = event.payload as { requestId?: unknown };
  return typeof payload.requestId === 'string' ? payload.requestId : null;
}

/** Collects events and hands them to `send` in throttled, size-capped, order-keeping batches. */
export class EventBatcher {
  private readonly buffer: PushedEvent[] = [];
  /** requestId → index in `buffer` of its latest chunk, while nothing else of it came after. */
  private readonly openChunks = new Map<string, number>();
  private timer: unknown = null;
  private lastSendAtMs = Number.NEGATIVE_INFINITY;
  private isDisposed = false;
  private readonly intervalMs: number;
  private readonly maxBatchSize: number;
  private readonly clock: BatcherClock;

  constructor(private readonly options: BatcherOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_BATCH_INTERVAL_MS;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE);
    this.clock = options.clock ?? realClock;
  }

  /** Number of events waiting for the next send. */
  get numPending(): number {
    return this.buffer.length;
  }

  /** Queues one event (merging it into its request's pending chunk when it is text) and schedules a send. */
  push(event: PushedEvent): void {
    if (this.isDisposed) return;
    if (!this.mergeChunk(event)) {
      const requestId = requestIdOf(event);
      if (requestId !== null) this.openChunks.delete(requestId);
      if (event.name === 'request.chunk') this.openChunks.set(event.payload.requestId, this.buffer.length);
      this.buffer.push(event);
    }
    this.schedule();
  }

  /** Sends one batch now (up to the cap) and schedules the rest; a no-op when nothing waits. */
  flush(): void {
    this.cancelTimer();
    if (this.buffer.length === 0) return;
    const batch = this.buffer.splice(0, this.maxBatchSize);
    this.openChunks.clear();
    this.lastSendAtMs = this.clock.nowMs();
    this.options.send(batch);
    if (this.buffer.length > 0) this.schedule();
  }

  /** Stops sending; pending events are discarded (the window they were for is gone). */
  dispose(): void {
    this.isDisposed = true;
    this.cancelTimer();
    this.buffer.length = 0;
    this.openChunks.clear();
  }

  /** Appends a chunk's text to the same request's pending chunk; false when there is none. */
  private mergeChunk(event: PushedEvent): boolean {
    if (event.name !== 'request.chunk') return false;
    const index = this.openChunks.get(event.payload.requestId);
    const pending = index === undefined ? undefined : this.buffer[index];
    if (pending === undefined || pending.name !== 'request.chunk') return false;
    this.buffer[index!] = {
      name: 'request.chunk',
      payload: {
        ...pending.payload,
        text: pending.payload.text + event.payload.text,
        numTokens: pending.payload.numTokens + event.payload.numTokens,
      },
    };
    return true;
  }

  /** Arms the timer for the earliest send the interval allows (0 ms after a quiet spell). */
  private schedule(): void {
    if (this.timer !== null || this.buffer.length === 0) return;
    const delayMs = Math.max(0, this.lastSendAtMs + this.intervalMs - this.clock.nowMs());
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      this.flush();
    }, delayMs);
  }

  private cancelTimer(): void {
    if (this.timer === null) return;
    this.clock.clearTimer(this.timer);
    this.timer = null;
  }
}
