import type { Worker } from 'node:worker_threads';
import { TRACE_LIMITS } from '../../limits';
import { spawnWorker } from '../../threads/spawn-worker';
import type { Timeline } from '../timeline/schema';
import type { FromImportWorker, ImportSummary, ToImportWorker } from './import-protocol';

/** Receives one batch of imported timelines; the next batch waits until it resolves. */
export type BatchSink = (timelines: Timeline[]) => void | Promise<void>;

/**
 * One trace import run in a worker thread: the caller streams text in (`write`), gets the
 * summary at `end`, then `commit`s the timelines to a sink batch by batch (backpressure: one
 * batch in flight) or `discard`s them. The worker's heap is capped, so a file that still
 * outgrows it fails this import with a reason instead of taking the process down.
 */
export class TraceImportJob {
  private readonly worker: Worker;
  private waiter: { resolve(m: FromImportWorker): void; reject(e: Error): void } | null = null;
  private failure: Error | null = null;
  private isFinished = false;

  constructor() {
    this.worker = spawnWorker('trace-import-worker', new URL('./import-worker-entry.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: TRACE_LIMITS.workerHeapMb },
    });
    this.worker.on('message', (message: FromImportWorker) => this.settle(message));
    this.worker.on('error', (error) => this.fail(new Error(`the trace import failed: ${describe(error)}`)));
    this.worker.on('exit', (code) => {
      if (!this.isFinished) this.fail(new Error(`the trace import worker stopped (exit code ${code})`));
    });
  }

  /** Hands a chunk of the trace's text to the worker (any size; lines may span chunks). */
  write(text: string): void {
    for (let at = 0; at < text.length; at += TRACE_LIMITS.sliceChars)
      this.send({ kind: 'chunk', text: text.slice(at, at + TRACE_LIMITS.sliceChars) });
  }

  /** Ends the text; resolves with what the whole file came to (nothing is stored yet). */
  async end(): Promise<ImportSummary> {
    const reply = await this.request({ kind: 'end' });
    if (reply.kind !== 'summary') throw new Error(`the trace import worker answered ${reply.kind}`);
    const { kind: _kind, ...summary } = reply;
    return summary;
  }

  /** Sends every timeline, filed under `runId`, to `sink` in batches; resolves with the count. */
  async commit(runId: string | null, sink: BatchSink): Promise<number> {
    let numDelivered = 0;
    for (
      let reply = await this.request({ kind: 'commit', runId });
      ;
      reply = await this.request({ kind: 'next' })
    ) {
      if (reply.kind === 'done') break;
      if (reply.kind !== 'batch') throw new Error(`the trace import worker answered ${reply.kind}`);
      await sink(reply.timelines);
      numDelivered += reply.timelines.length;
    }
    this.isFinished = true;
    return numDelivered;
  }

  /** Drops everything the worker holds and stops it. */
  discard(): void {
    if (this.isFinished) return;
    this.isFinished = true;
    void this.worker.terminate();
  }

  private send(message: ToImportWorker): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(message);
  }

  private request(message: ToImportWorker): Promise<FromImportWorker> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiter = { resolve, reject };
      this.worker.postMessage(message);
    });
  }

  private settle(message: FromImportWorker): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (message.kind === 'failed') return this.fail(new Error(`the trace import failed: ${message.message}`));
    if (message.kind === 'done') this.isFinished = true;
    waiter?.resolve(message);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.isFinished = true;
    this.waiter?.reject(error);
    this.waiter = null;
    void this.worker.terminate();
  }
}

function describe(error: Error): string {
  return (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? `the file needs more memory than an import may use (${TRACE_LIMITS.workerHeapMb} MB); split it`
    : error.message;
}
