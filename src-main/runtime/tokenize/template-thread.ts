import { JobWorker } from '../../threads/job-worker';
import { spawnWorker } from '../../threads/spawn-worker';
import { TemplateError } from './chat-template';
import type { CatalogueModel } from '../model/catalogue';
import type { PromptText } from './chat-literals';
import type { ChatTurn } from './tokenizer';
import type { RenderJob, RenderReply } from './protocol';

/**
 * Renders chat templates that are over the serving thread's budget (TEMPLATE_LIMITS.inlineSteps)
 * in a worker thread of their own, apart from the tokenizer thread, so a slow template delays
 * only the renders queued behind it, never another model's request or a long prompt's encoding.
 */
export class TemplateThread {
  private readonly jobs = new JobWorker<RenderJob, RenderReply>('the template thread', () =>
    spawnWorker('template-worker', new URL('./template-worker-entry.ts', import.meta.url)),
  );

  /**
   * The model's chat prompt for `messages`, as `model.folder.tokenizer.renderChat(messages)`
   * gives it. Rejects with TemplateError when the template fails or runs past its bounds.
   */
  async render(model: CatalogueModel, messages: readonly ChatTurn[]): Promise<PromptText> {
    const tokenizer = model.folder.tokenizer;
    const chat = tokenizer.chatInput(messages);
    const source = tokenizer.templateSource;
    if (source === null) return chat.untemplated;
    const reply = await this.jobs.run({ source, items: chat.items, inputChars: chat.inputChars });
    if (!('text' in reply)) throw new TemplateError(reply.error);
    tokenizer.noteThreadRender(reply.numSteps);
    return { kind: 'chat', text: reply.text, literals: chat.literals };
  }

  /** Stops the thread; renders still waiting fail. */
  close(): Promise<void> {
    return this.jobs.close();
  }
}
