import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../../threads/spawn-worker';
import { LISTING_BUDGET } from './listing-protocol';
import type { ListingJob, ListingReply, ListingResult } from './listing-protocol';

/** A listing thread's budgets: LISTING_BUDGET's, narrower in tests. */
export interface ListingBudget {
  maxMs: number;
  maxHeapMb: number;
}

/**
 * Reads and checks models in a worker thread (started on demand, one model at a time), so no
 * file holds the serving thread. A model over its time or memory budget ends the thread (a pure
 * JavaScript worker, so ending it mid-job is safe) and is refused with the budget it exceeded.
 */
export class ListingThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly budget: ListingBudget = LISTING_BUDGET) {}

  /** What listing makes of one model; never rejects. Jobs run one after another. */
  list(job: Omit<ListingJob, 'id'>): Promise<ListingResult> {
    const run = this.queue.then(() => this.run({ ...job, id: this.nextId++ }));
    this.queue = run;
    return run;
  }

  /**
   * Ends the thread once the jobs sent so far are answered, freeing what listing held; a job sent
   * later (a refresh beside this one) starts a fresh thread.
   */
  close(): Promise<void> {
    const closing = this.queue.then(() => this.stop());
    this.queue = closing;
    return closing;
  }

  private run(job: ListingJob): Promise<ListingResult> {
    const worker = this.started();
    return new Promise<ListingResult>((resolve) => {
      const finish = (result: ListingResult, isWorkerLost: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.unref();
        if (isWorkerLost) void this.stop();
        resolve(result);
      };
      const onMessage = (reply: ListingReply) => {
        if (reply.id === job.id) finish(reply.result, false);
      };
      const onError = (error: Error & { code?: string }) =>
        finish(refused(job, lostReason(error, this.budget)), true);
      const onExit = (code: number) =>
        finish(refused(job, `the listing thread stopped (exit code ${code}) while reading it`), true);
      const timer = setTimeout(
        () =>
          finish(
            refused(job, `reading it took longer than ${seconds(this.budget.maxMs)}, the limit per model`),
            true,
          ),
        this.budget.maxMs,
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref();
      worker.postMessage(job);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker('listing-worker', new URL('./worker-entry.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.budget.maxHeapMb },
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}

/**
 * A refusal by budget: the model is listed as unable to load, with the budget it exceeded. A
 * folder's problem names the folder (the catalogue puts a GGUF's file name before its problem).
 */
function refused(job: ListingJob, why: string): ListingResult {
  const problem = `refused: ${why}`;
  return { status: 'broken', problem: job.kind === 'folder' ? `${job.path}: ${problem}` : problem };
}

function lostReason(error: Error & { code?: string }, budget: ListingBudget): string {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return `reading it needed more than ${budget.maxHeapMb} MB of memory, the limit per model`;
  return `the listing thread failed while reading it (${error.message})`;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}
