import type { Worker } from 'node:worker_threads';
import type {
  Envelope,
  LoadJob,
  LoadedReply,
  StepJob,
  SteppedReply,
  WorkerJob,
  WorkerReply,
} from './protocol';
import { spawnSlotWorker } from './spawn-worker';

/**
 * The main thread's handle on one slot worker. It allows one job in flight at a time: a slot
 * executes one step at a time, so a sequence can never run on another slot's session.
 */
export class RunnerClient {
  private readonly worker: Worker;
  private nextJobId = 1;
  private pending: {
    jobId: number;
    resolve: (reply: WorkerReply) => void;
    reject: (error: Error) => void;
  } | null = null;
  private isClosed = false;

  constructor(worker: Worker = spawnSlotWorker()) {
    this.worker = worker;
    this.worker.on('message', (envelope: Envelope<WorkerReply>) => this.settle(envelope));
    this.worker.on('error', (error) => this.failPending(error));
    this.worker.on('exit', (code) => {
      this.isClosed = true;
      this.failPending(new Error(`slot worker exited with code ${code}`));
    });
  }

  /** True while a job is running in the worker (the slot's execution lock is held). */
  get isBusy(): boolean {
    return this.pending !== null;
  }

  /** Reads weights, builds the session and warms it up. */
  async load(job: LoadJob): Promise<LoadedReply> {
    return this.expect(await this.post(job), 'loaded');
  }

  /** Runs one scheduler step on this slot. */
  async step(job: StepJob): Promise<SteppedReply> {
    return this.expect(await this.post(job), 'stepped');
  }

  /** Releases the session, then stops the thread (never while a run is in progress). */
  async close(): Promise<void> {
    if (this.isClosed) return;
    try {
      await this.post({ type: 'unload' });
    } finally {
      this.isClosed = true;
      await this.worker.terminate();
    }
  }

  private post(body: WorkerJob, transfer: ArrayBuffer[] = []): Promise<WorkerReply> {
    if (this.isClosed) return Promise.reject(new Error('slot worker is closed'));
    if (this.pending) return Promise.reject(new Error('slot worker is busy: one job at a time'));
    const jobId = this.nextJobId++;
    return new Promise((resolve, reject) => {
      this.pending = { jobId, resolve, reject };
      this.worker.postMessage({ jobId, body } satisfies Envelope<WorkerJob>, transfer);
    });
  }

  private settle(envelope: Envelope<WorkerReply>): void {
    const pending = this.pending;
    if (!pending || pending.jobId !== envelope.jobId) return;
    this.pending = null;
    pending.resolve(envelope.body);
  }

  private failPending(error: Error): void {
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }

  private expect<T extends WorkerReply['type']>(
    reply: WorkerReply,
    type: T,
  ): Extract<WorkerReply, { type: T }> {
    if (reply.type === 'failed') throw new Error(reply.message);
    if (reply.type !== type) throw new Error(`slot worker answered ${reply.type}, expected ${type}`);
    return reply as Extract<WorkerReply, { type: T }>;
  }
}
