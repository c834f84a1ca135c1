import type { PushedEvent } from '../service/contract/events';

// The one event-batching policy of both transports (IPC to the window, SSE to a browser), so a
// fast token stream cannot flood a client: at most one send per interval, each send capped in
// size, consecutive text chunks of one request merged. Nothing is dropped and each request's
// events keep their order. Two things go out at once (on the next timer tick) instead of
// waiting for the interval: the first event after a quiet spell, and the first chunk of each
// request. The client stamps that chunk's arrival as its side of TTFT, so holding it back while
// another stream keeps the batcher busy would be reported as transport.

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

/** Spacing between sends (ms): 20 sends/s. */
export const DEFAULT_BATCH_INTERVAL_MS = 50;
/** Events per send at most; a fuller batch goes out at once. */
export const DEFAULT_MAX_BATCH_SIZE = 256;
/** Requests remembered as started; beyond this the set starts over (a first chunk may then repeat). */
const MAX_STARTED_REQUESTS = 10_000;

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
  /** Requests whose first chunk has gone out (forgotten at their `request.done`). */
  private readonly startedRequests = new Set<string>();
  private timer: unknown = null;
  /** A first chunk is waiting: the next send goes at once, whatever the interval says. */
  private isUrgent = false;
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
    if (this.isFirstChunk(event)) this.cancelTimer(); // rearmed below at 0 ms
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
    this.isUrgent = false;
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
    this.startedRequests.clear();
  }

  /** True for a request's first chunk (which goes out at once); forgets a request at its end. */
  private isFirstChunk(event: PushedEvent): boolean {
    if (event.name === 'request.done') this.startedRequests.delete(event.payload.requestId);
    if (event.name !== 'request.chunk' || this.startedRequests.has(event.payload.requestId)) return false;
    // A client that never sees `request.done` (cancelled elsewhere) must not grow this forever.
    if (this.startedRequests.size >= MAX_STARTED_REQUESTS) this.startedRequests.clear();
    this.startedRequests.add(event.payload.requestId);
    this.isUrgent = true;
    return true;
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
    const delayMs = this.isUrgent ? 0 : Math.max(0, this.lastSendAtMs + this.intervalMs - this.clock.nowMs());
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
