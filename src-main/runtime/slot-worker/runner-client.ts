import type { Worker } from 'node:worker_threads';
import { NOTICE_JOB_ID } from './protocol';
import type {
  Envelope,
  LoadJob,
  LoadedReply,
  MainNotice,
  StepJob,
  SteppedReply,
  WorkerJob,
  WorkerMessage,
  WorkerReply,
} from './protocol';
import { spawnSlotWorker } from './spawn-worker';
import { markStep } from './step-trace';
import { isWakePollOn } from './wake-poll';

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
  private hasExited = false;
  private exitReason: string | null = null;
  private readonly exitListeners: ((reason: string) => void)[] = [];
  private closing: Promise<void> | null = null;
  private pendingPromise: Promise<WorkerReply> | null = null;

  /** Drives `worker` (a spare taken from SpareWorker, or a fresh thread). */
  constructor(worker: Worker = spawnSlotWorker()) {
    this.worker = worker;
    this.worker.on('message', (envelope: Envelope<WorkerMessage>) => this.settle(envelope));
    // An uncaught error in the worker is always followed by its exit: the job in flight fails
    // there, with this reason.
    this.worker.on('error', (error) => {
      this.exitReason ??= `the slot worker failed: ${error.message}`;
    });
    this.worker.on('exit', (code) => {
      const isExpected = this.isClosed;
      this.isClosed = true;
      this.hasExited = true;
      const reason = this.exitReason ?? `the slot worker exited with code ${code}`;
      this.failPending(new Error(reason));
      if (!isExpected) for (const listener of this.exitListeners) listener(reason);
    });
  }

  /** Hears once, with the reason, if the worker dies on its own (never after close()). */
  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
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

  /** Asks the job in flight to end its decode burst after its current step; nothing when idle. */
  cutBurst(): void {
    if (this.pending) this.notify({ type: 'cutBurst' });
  }

  /** Tells an idle worker a job is on its way (WakeNotice); nothing while a job runs (it is awake). */
  wake(): void {
    if (!this.pending && isWakePollOn()) this.notify({ type: 'wake' });
  }

  private notify(body: MainNotice): void {
    if (!this.isClosed)
      this.worker.postMessage({ jobId: NOTICE_JOB_ID, body } satisfies Envelope<MainNotice>);
  }

  /**
   * Releases the session, then stops the thread. Never while a run is in progress: terminating
   * a worker inside `run()` aborts the whole process (docs/design.md), so this waits for the job in
   * flight and for the worker's own `unloaded` answer. Safe to call more than once.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.isClosed) return;
    // Only waiting for the job in flight to end: its own caller hears how it ended.
    while (this.pendingPromise) await this.pendingPromise.catch(() => undefined);
    const isUnloaded = await this.post({ type: 'unload' }).then(
      () => true,
      () => false,
    );
    this.isClosed = true;
    // A worker that could not unload (it already exited) has nothing running either.
    if (isUnloaded || this.hasExited) await this.worker.terminate();
    else this.worker.unref();
  }

  private post(body: WorkerJob): Promise<WorkerReply> {
    if (this.isClosed) return Promise.reject(new Error('slot worker is closed'));
    if (this.pending) return Promise.reject(new Error('slot worker is busy: one job at a time'));
    const jobId = this.nextJobId++;
    const promise = new Promise<WorkerReply>((resolve, reject) => {
      this.pending = { jobId, resolve, reject };
      this.worker.postMessage({ jobId, body } satisfies Envelope<WorkerJob>);
      markStep('jobPosted');
    });
    this.pendingPromise = promise;
    const clear = () => {
      if (this.pendingPromise === promise) this.pendingPromise = null;
    };
    promise.then(clear, clear);
    return promise;
  }

  private settle(envelope: Envelope<WorkerMessage>): void {
    const pending = this.pending;
    // The ready notice (a spare taken while still starting) answers no job.
    if (!pending || pending.jobId !== envelope.jobId || envelope.body.type === 'ready') return;
    markStep('replyReceived');
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
