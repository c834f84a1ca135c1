import { HISTORY_LIMITS } from '../../limits';
import type { Timeline } from '../../telemetry/timeline/schema';
import { writeProblemOf } from '../errors';
import type { HistoryHealth } from '../health';
import { HealthTracker } from '../health';
import type { SlotEventRecord } from '../../telemetry/residency/schema';
import type { BatchSink, ClientTtftUpdate, PendingRun, WriteBatch } from './batch';
import { batchSize, prefixCounts, singleItemBatches } from './batch';
import { Fifo } from './fifo';
import type { FlushTimer } from './flush-timer';
import { eventLoopFlushTimer } from './flush-timer';

/** How the writer batches; every field has a default (limits.ts). */
export interface WriterOptions {
  /** Items per transaction. */
  maxBatch?: number;
  /** Longest an item waits before a flush when traffic is light (ms). */
  flushIntervalMs?: number;
  /** Items held while the disk lags or refuses; beyond this new items are refused and counted. */
  maxPending?: number;
  /** When flushes and retries run (default: the event loop). */
  flushTimer?: FlushTimer;
  /** An item could not be written (it is counted in numFailed); the writer goes on. */
  onItemError?: (error: unknown) => void;
  /** The database can no longer be written (corrupt, read-only, I/O error); the writer stops. */
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
  /** Writes refused for a busy lock or a full disk and retried (nothing was lost). */
  numRetries: number;
  isStopped: boolean;
}

/**
 * Batches history writes off the serving path. `enqueue*` is O(1) and never touches the disk;
 * a size trigger (setImmediate) or a timer flushes up to `maxBatch` items in one transaction
 * on a later turn of the event loop, never on the caller's stack. The connection never waits
 * on a lock (busy timeout 0): a busy database or a full disk leaves the batch queued, the
 * health says why, and a timer retries (busy: backing off from 50 ms to 1 s; full: every
 * 5 s). Only a database that can no longer be trusted stops the writer. `flush()` drains
 * synchronously, for shutdown.
 */
export class BatchedWriter {
  private readonly runs = new Fifo<PendingRun>();
  private readonly timelines = new Fifo<Timeline>();
  private readonly slotEvents = new Fifo<SlotEventRecord>();
  private readonly clientTtfts = new Fifo<ClientTtftUpdate>();
  private readonly maxBatch: number;
  private readonly maxPending: number;
  private readonly flushTimer: FlushTimer;
  private readonly tracker = new HealthTracker(() => this.numPending);
  private isSoonQueued = false;
  private timer: { cancel(): void } | null = null;
  private retry: { cancel(): void } | null = null;
  private numBusyRetries = 0;
  private readonly counts = { numWritten: 0, numFailed: 0, numDropped: 0, numBatches: 0, numRetries: 0 };
  private isStopped = false;

  constructor(
    private readonly sink: BatchSink,
    private readonly options: WriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? HISTORY_LIMITS.maxBatch;
    this.maxPending = options.maxPending ?? HISTORY_LIMITS.maxPending;
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

  /** Queues a run row the caller could not insert at once; it is written before any later timeline. */
  enqueueRun(run: PendingRun): void {
    if (this.admit()) this.runs.push(run);
  }

  /** Counters since the writer was made. */
  get stats(): WriterStats {
    return { ...this.counts, numPending: this.numPending, isStopped: this.isStopped };
  }

  /** `ok`, or `busy`/`full` with the reason while writes are being retried. */
  get health(): HistoryHealth {
    return this.tracker.health;
  }

  /** Writes everything queued now, synchronously (shutdown, tests); stops early if the disk refuses. */
  flush(): void {
    while (!this.isStopped && this.numPending > 0) if (!this.writeNext()) return;
  }

  /**
   * Flushes and stops the timers; returns what the disk still refused, in write order, for the
   * caller to keep (history/spill.ts). Items enqueued later are counted as dropped.
   */
  close(): WriteBatch {
    this.flush();
    this.timer?.cancel();
    this.retry?.cancel();
    this.timer = this.retry = null;
    this.isStopped = true;
    const { runs, timelines, slotEvents, clientTtfts } = this;
    return {
      runs: runs.take(runs.size),
      timelines: timelines.take(timelines.size),
      slotEvents: slotEvents.take(slotEvents.size),
      clientTtfts: clientTtfts.take(clientTtfts.size),
    };
  }

  private get numPending(): number {
    return this.runs.size + this.timelines.size + this.slotEvents.size + this.clientTtfts.size;
  }

  private admit(): boolean {
    if (this.isStopped || this.numPending >= this.maxPending) {
      this.counts.numDropped++;
      return false;
    }
    if (this.retry) return true; // the retry timer writes everything queued
    if (this.numPending + 1 >= this.maxBatch) this.queueSoon();
    else if (!this.timer)
      this.timer = this.flushTimer.later(this.options.flushIntervalMs ?? HISTORY_LIMITS.flushIntervalMs, () =>
        this.onTimer(),
      );
    return true;
  }

  private queueSoon(): void {
    if (this.isSoonQueued) return;
    this.isSoonQueued = true;
    this.flushTimer.soon(() => {
      this.isSoonQueued = false;
      if (this.retry || this.isStopped) return;
      if (this.writeNext() && this.numPending > 0) this.queueSoon();
    });
  }

  private onTimer(): void {
    this.timer = null;
    if (this.numPending > 0 && !this.retry) this.queueSoon();
  }

  /** The next batch, left queued until it commits: runs, timelines, slot events, then client TTFTs. */
  private peekBatch(): WriteBatch {
    const runs = this.runs.peek(this.maxBatch);
    const timelines = this.timelines.peek(this.maxBatch - runs.length);
    const slotEvents = this.slotEvents.peek(this.maxBatch - runs.length - timelines.length);
    // An update waits until every earlier timeline is written, so its row exists.
    const isLastTimeline = this.timelines.size === timelines.length;
    const numRowsLeft = isLastTimeline
      ? this.maxBatch - runs.length - timelines.length - slotEvents.length
      : 0;
    return { runs, timelines, slotEvents, clientTtfts: this.clientTtfts.peek(numRowsLeft) };
  }

  /** Writes one batch; false when the disk refused and a retry is scheduled (or the writer stopped). */
  private writeNext(): boolean {
    const batch = this.peekBatch();
    if (batchSize(batch) === 0) return true;
    try {
      this.sink.writeBatch(batch);
    } catch (error) {
      return this.onBatchError(error, batch);
    }
    this.committed(batch, batchSize(batch));
    return true;
  }

  private onBatchError(error: unknown, batch: WriteBatch): boolean {
    const problem = writeProblemOf(error);
    if (problem === 'fatal') return this.stop(error, batch, batchSize(batch));
    if (problem !== 'item') return this.refused(problem, error);
    // One bad item (say, an unknown run) must not cost its neighbours: write them singly.
    const singles = singleItemBatches(batch);
    for (let i = 0; i < singles.length; i++) {
      try {
        this.sink.writeBatch(singles[i]!);
        this.counts.numWritten++;
        this.options.onCommitted?.(singles[i]!);
      } catch (singleError) {
        const singleProblem = writeProblemOf(singleError);
        if (singleProblem === 'fatal') return this.stop(singleError, batch, singles.length - i);
        if (singleProblem !== 'item') {
          this.dropWritten(batch, i);
          return this.refused(singleProblem, singleError);
        }
        this.counts.numFailed++;
        this.options.onItemError?.(singleError);
      }
    }
    this.dropWritten(batch, singles.length);
    this.counts.numBatches++;
    return true;
  }

  private committed(batch: WriteBatch, numItems: number): void {
    this.dropWritten(batch, numItems);
    this.counts.numWritten += numItems;
    this.counts.numBatches++;
    this.numBusyRetries = 0;
    this.tracker.recovered();
    this.options.onCommitted?.(batch);
  }

  /** Removes the first `numItems` items of the batch (in write order) from their queues. */
  private dropWritten(batch: WriteBatch, numItems: number): void {
    const counts = prefixCounts(batch, numItems);
    this.runs.drop(counts.runs);
    this.timelines.drop(counts.timelines);
    this.slotEvents.drop(counts.slotEvents);
    this.clientTtfts.drop(counts.clientTtfts);
  }

  /** The disk refused for now: keep everything, say why, and try again later. */
  private refused(problem: 'busy' | 'full', error: unknown): false {
    this.tracker.refused(problem, error);
    this.counts.numRetries++;
    const delayMs =
      problem === 'full'
        ? HISTORY_LIMITS.fullRetryMs
        : Math.min(HISTORY_LIMITS.busyRetryMs * 2 ** this.numBusyRetries++, HISTORY_LIMITS.maxBusyRetryMs);
    this.retry?.cancel();
    this.retry = this.flushTimer.later(delayMs, () => {
      this.retry = null;
      if (!this.isStopped && this.numPending > 0) this.queueSoon();
    });
    return false;
  }

  /** The database is lost: the batch's unwritten items failed, everything else queued is dropped. */
  private stop(error: unknown, batch: WriteBatch, numLost: number): false {
    if (this.isStopped) return false;
    this.isStopped = true;
    this.dropWritten(batch, batchSize(batch));
    this.counts.numFailed += numLost;
    this.counts.numDropped += this.clearAll();
    this.timer?.cancel();
    this.retry?.cancel();
    this.options.onFatal?.(error);
    return false;
  }

  private clearAll(): number {
    return this.runs.clear() + this.timelines.clear() + this.slotEvents.clear() + this.clientTtfts.clear();
  }
}
