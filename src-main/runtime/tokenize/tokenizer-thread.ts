import { JobWorker } from '../../threads/job-worker';
import { spawnWorker } from '../../threads/spawn-worker';
import { rawPrompt } from './chat-literals';
import type { CatalogueModel } from '../model/catalogue';
import type { PromptText } from './chat-literals';
import type { EncodeJob, EncodeReply } from './protocol';

/** Plain prose of about 2,000 characters: enough encoding to compile a tokenizer's hot paths. */
const WARM_TEXT = Array.from(
  { length: 24 },
  (_, i) => `Note ${i}: the letter came on a fine morning, and everyone in the house read it twice.`,
).join(' ');

/**
 * Encodes long prompts in a worker thread (started on first use, restarted after a crash),
 * so tokenizing a long input never holds the serving thread. Jobs run one after another in
 * the order they were sent.
 */
export class TokenizerThread {
  private readonly jobs = new JobWorker<EncodeJob, EncodeReply>('the tokenizer thread', () =>
    spawnWorker('tokenizer-worker', new URL('./worker-entry.ts', import.meta.url)),
  );

  /**
   * The model's token ids for `prompt`, exactly as `model.folder.tokenizer.encodePrompt(prompt)`
   * gives them; that tokenizer's cache learns them too, so a longer text that repeats this one is
   * mostly a cache hit on the serving thread.
   */
  async encode(model: CatalogueModel, prompt: PromptText): Promise<number[]> {
    const { text, literals } = prompt;
    const tokenizer = model.folder.tokenizer;
    const reply = await this.jobs.run({
      folder: model.folder.folder,
      isGguf: model.folder.format === 'gguf',
      tokenizerRevision: model.revisions.tokenizerRevision,
      text,
      literals,
      held: tokenizer.heldPieces(text, literals),
    });
    if (!('ids' in reply)) throw new Error(`the prompt could not be tokenized: ${reply.error}`);
    tokenizer.learn(text, reply.ids, reply.numIdsPerPart, literals);
    return tokenizer.withAddedSpecials(prompt, reply.ids);
  }

  /**
   * Starts the thread and builds the model's tokenizer there ahead of need (when its slot
   * loads), then encodes a few KB of text so the tokenizer's code is compiled: the first long
   * prompt pays for none of it in its `route` time. A failure here changes nothing: the first
   * real prompt tries again and reports it.
   */
  warm(model: CatalogueModel): void {
    this.encode(model, rawPrompt(WARM_TEXT)).catch(() => undefined);
  }

  /** Stops the thread; jobs still waiting fail. */
  close(): Promise<void> {
    return this.jobs.close();
  }
}
