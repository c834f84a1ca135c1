import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../threads';
import { rawPrompt } from '../model';
import type { CatalogueModel, PromptText } from '../model';
import type { EncodeJob, EncodeReply } from './protocol';

/**
 * Encodes long prompts in a worker thread (started on first use, restarted after a crash),
 * so tokenizing a long input never holds the serving thread. Jobs run one after another in
 * the order they were sent.
 */
export class TokenizerThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve(ids: number[], numIdsPerPart: number[] | null): void; reject(error: Error): void }
  >();

  /**
   * The model's token ids for `prompt`, exactly as `model.folder.tokenizer.encodePrompt(prompt)`
   * gives them; that tokenizer's cache learns them too, so a longer text that repeats this one is
   * mostly a cache hit on the serving thread.
   */
  encode(model: CatalogueModel, prompt: PromptText): Promise<number[]> {
    const { text, literals } = prompt;
    const job: EncodeJob = {
      id: this.nextId++,
      folder: model.folder.folder,
      isGguf: model.folder.format === 'gguf',
      tokenizerRevision: model.revisions.tokenizerRevision,
      text,
      literals,
    };
    return new Promise((resolve, reject) => {
      const learn = (ids: number[], numIdsPerPart: number[] | null) => {
        const tokenizer = model.folder.tokenizer;
        tokenizer.learn(text, ids, numIdsPerPart, literals);
        resolve(tokenizer.withAddedSpecials(prompt, ids));
      };
      this.waiting.set(job.id, { resolve: learn, reject });
      const worker = this.started();
      // Held while jobs wait (a CLI must not exit under one), let go when idle.
      worker.ref();
      worker.postMessage(job);
    });
  }

  /**
   * Starts the thread and builds the model's tokenizer there ahead of need (when its slot
   * loads), so the first long prompt does not pay for either in its `route` time. A failure
   * here changes nothing: the first real prompt tries again and reports it.
   */
  warm(model: CatalogueModel): void {
    this.encode(model, rawPrompt('')).catch(() => undefined);
  }

  /** Stops the thread; jobs still waiting fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failAll(new Error('the tokenizer thread was closed'));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker('tokenizer-worker', new URL('./worker-entry.ts', import.meta.url));
    worker.unref();
    worker.on('message', (reply: EncodeReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if ('ids' in reply) waiter?.resolve(reply.ids, reply.numIdsPerPart);
      else waiter?.reject(new Error(`the prompt could not be tokenized: ${reply.error}`));
    });
    const onGone = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(new Error(`the tokenizer thread stopped (${reason}); the next request starts a new one`));
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
