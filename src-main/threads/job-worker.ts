import type { Worker } from 'node:worker_threads';

/** A job for a JobWorker: numbered by it, so each reply finds its caller. */
export interface NumberedJob {
  id: number;
}

/**
 * One worker thread that answers numbered jobs (started on first use, started again after it
 * dies): each `run` resolves with the reply carrying its job's id. While jobs wait the thread is
 * held (a CLI must not exit under one); idle, it is let go. When the thread dies or is closed,
 * every waiting job fails with an Error naming it (`label`), and the next job starts a new one.
 */
export class JobWorker<Job extends NumberedJob, Reply extends NumberedJob> {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();

  constructor(
    /** What the thread is, in words ("the tokenizer thread"). */
    private readonly label: string,
    /** Starts the thread (spawnWorker with its entry). */
    private readonly spawn: () => Worker,
  ) {}

  /** Sends a job (numbered here); resolves with the thread's reply to it. */
  run(job: Omit<Job, 'id'>): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      const worker = this.started();
      worker.ref();
      worker.postMessage({ ...job, id });
    });
  }

  /** Stops the thread; jobs still waiting fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failAll(new Error(`${this.label} was closed`));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = this.spawn();
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      waiter?.resolve(reply);
    });
    const onGone = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(new Error(`${this.label} stopped (${reason}); the next request starts a new one`));
    };
    worker.on('error', (error) => onGone(error.message));
    worker.on('exit', (code) => onGone(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
