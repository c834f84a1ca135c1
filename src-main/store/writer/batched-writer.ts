import type { Timeline } from '../../telemetry/timeline';
import { isFatalWriteError } from '../errors';
import type { SlotEventRecord } from '../slot-event';
import type { BatchSink, ClientTtftUpdate, WriteBatch } from './batch';
import { batchSize, singleItemBatches } from './batch';
import { Fifo } from './fifo';
import type { FlushTimer } from './flush-timer';
import { eventLoopFlushTimer } from './flush-timer';

/** How the writer batches; every field has a default. */
export interface WriterOptions {
  /** Items per transaction (default 1,000: a few ms of main-thread time per flush). */
  maxBatch?: number;
  /** Longest an item waits before a flush when traffic is light (default 200 ms). */
  flushIntervalMs?: number;
  /** Items held while the disk lags; beyond this new items are dropped and counted (default 200,000). */
  maxPending?: number;
  /** When flushes run (default: the event loop). */
  flushTimer?: FlushTimer;
  /** An item could not be written (it is counted in numFailed); the writer goes on. */
  onItemError?: (error: unknown) => void;
  /** The database can no longer be written (corrupt, read-only, disk full); the writer stops. */
  onFatal?: (error: unknown) => void;
  /** A batch committed (after its transaction). */
  onCommitted?: (batch: WriteBatch) => void;
}

/** Counters a status view can show. */
export interface WriterStats {
  numPending: number;
  numWritten: number;
  numFailed: number;
  numDropped: number;
  numBatches: number;
  isStopped: boolean;
}

/**
 * Batches history writes off the serving path. `enqueue*` is O(1) and never touches the disk;
 * a size trigger (setImmediate) or a timer flushes up to `maxBatch` items in one transaction
 * on a later turn of the event loop, never on the caller's stack. `flush()` drains everything
 * synchronously, for shutdown.
 */
export class BatchedWriter {
  private readonly timelines = new Fifo<Timeline>();
  private readonly slotEvents = new Fifo<SlotEventRecord>();
  private readonly clientTtfts = new Fifo<ClientTtftUpdate>();
  private readonly maxBatch: number;
  private readonly maxPending: number;
  private readonly flushTimer: FlushTimer;
  private isSoonQueued = false;
  private timer: { cancel(): void } | null = null;
  private readonly counts = { numWritten: 0, numFailed: 0, numDropped: 0, numBatches: 0 };
  private isStopped = false;

  constructor(
    private readonly sink: BatchSink,
    private readonly options: WriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 1_000;
    this.maxPending = options.maxPending ?? 200_000;
    this.flushTimer = options.flushTimer ?? eventLoopFlushTimer;
  }

  /** Queues a finished timeline for storage. O(1); never waits on the disk. */
  enqueue(timeline: Timeline): void {
    if (this.admit()) this.timelines.push(timeline);
  }

  /** Queues a slot transition for storage. O(1). */
  enqueueSlotEvent(event: SlotEventRecord): void {
    if (this.admit()) this.slotEvents.push(event);
  }

  /** Queues a client TTFT for a stored (or still queued) timeline. O(1). */
  enqueueClientTtft(update: ClientTtftUpdate): void {
    if (this.admit()) this.clientTtfts.push(update);
  }

  /** Counters since the writer was made. */
  get stats(): WriterStats {
    return { ...this.counts, numPending: this.numPending, isStopped: this.isStopped };
  }

  /** Writes everything queued now, synchronously (shutdown, tests). */
  flush(): void {
    while (!this.isStopped && this.numPending > 0) this.writeNext();
  }

  /** Flushes and stops the timer; later items are dropped. */
  close(): void {
    this.flush();
    this.timer?.cancel();
    this.timer = null;
    this.isStopped = true;
  }

  private get numPending(): number {
    return this.timelines.size + this.slotEvents.size + this.clientTtfts.size;
  }

  private admit(): boolean {
    if (this.isStopped || this.numPending >= this.maxPending) {
      this.counts.numDropped++;
      return false;
    }
    const numPending = this.numPending + 1;
    if (numPending >= this.maxBatch) this.queueSoon();
    else if (!this.timer)
      this.timer = this.flushTimer.later(this.options.flushIntervalMs ?? 200, () => this.onTimer());
    return true;
  }

  private queueSoon(): void {
    if (this.isSoonQueued) return;
    this.isSoonQueued = true;
    this.flushTimer.soon(() => {
      this.isSoonQueued = false;
      this.writeNext();
      if (this.numPending > 0 && !this.isStopped) this.queueSoon();
    });
  }

  private onTimer(): void {
    this.timer = null;
    if (this.numPending > 0) this.queueSoon();
  }

  /** One transaction of up to maxBatch items: timelines, slot events, then client TTFTs. */
  private writeNext(): void {
    const timelines = this.timelines.take(this.maxBatch);
    const slotEvents = this.slotEvents.take(this.maxBatch - timelines.length);
    // An update waits until every earlier timeline is written, so its row exists.
    const room = this.timelines.size === 0 ? this.maxBatch - timelines.length - slotEvents.length : 0;
    const batch: WriteBatch = { timelines, slotEvents, clientTtfts: this.clientTtfts.take(room) };
    if (batchSize(batch) === 0) return;
    this.write(batch);
  }

  private write(batch: WriteBatch): void {
    try {
      this.sink.writeBatch(batch);
      this.committed(batch);
    } catch (error) {
      if (isFatalWriteError(error)) return this.stop(error, batchSize(batch));
      // One bad item (say, an unknown run) must not cost its neighbours: retry them singly.
      const singles = singleItemBatches(batch);
      for (let i = 0; i < singles.length; i++) {
        if (this.isStopped) {
          this.counts.numDropped += singles.length - i;
          return;
        }
        this.writeSingle(singles[i]!);
      }
    }
  }

  private writeSingle(batch: WriteBatch): void {
    try {
      this.sink.writeBatch(batch);
      this.committed(batch);
    } catch (error) {
      if (isFatalWriteError(error)) return this.stop(error, 1);
      this.counts.numFailed++;
      this.options.onItemError?.(error);
    }
  }

  private committed(batch: WriteBatch): void {
    this.counts.numWritten += batchSize(batch);
    this.counts.numBatches++;
    this.options.onCommitted?.(batch);
  }

  private stop(error: unknown, numLost: number): void {
    if (this.isStopped) return;
    this.isStopped = true;
    this.counts.numFailed += numLost;
    this.counts.numDropped += this.timelines.clear() + this.slotEvents.clear() + this.clientTtfts.clear();
    this.timer?.cancel();
    this.options.onFatal?.(error);
  }
}
