import { encodesInline } from './tokenizer';
import type { CatalogueModel } from '../model/catalogue';
import type { PromptText } from './chat-literals';
import type { ChatTurn } from './tokenizer';
import { TemplateThread } from './template-thread';
import { TokenizerThread } from './tokenizer-thread';
import type { TokenIdMemory } from './token-id-memory';

/**
 * The prompt work that may leave the serving thread: encoding a long prompt, rendering a chat
 * whose template is over the serving thread's budget. Each answers exactly what the serving
 * thread would have (same classes, same files).
 */
export interface OffThreadPrompts {
  /** The prompt's ids, as `tokenizer.encodePrompt` gives them. */
  encode(model: CatalogueModel, prompt: PromptText): Promise<number[]>;
  /** The chat's prompt, as `tokenizer.renderChat` gives it; rejects with TemplateError. */
  render(model: CatalogueModel, messages: readonly ChatTurn[]): Promise<PromptText>;
  /** Remembered token ids outliving the process (null: kept in memory only). */
  readonly tokenIds?: TokenIdMemory | null;
}

/** The runtime's two prompt threads: tokenizer and template, each its own worker. */
export class PromptThreads implements OffThreadPrompts {
  private readonly tokenizer = new TokenizerThread();
  private readonly templates = new TemplateThread();

  constructor(readonly tokenIds: TokenIdMemory | null = null) {}

  encode(model: CatalogueModel, prompt: PromptText): Promise<number[]> {
    return this.tokenizer.encode(model, prompt);
  }

  render(model: CatalogueModel, messages: readonly ChatTurn[]): Promise<PromptText> {
    return this.templates.render(model, messages);
  }

  /** Builds the model's tokenizer in its thread ahead of need (TokenizerThread.warm). */
  warm(model: CatalogueModel): void {
    this.tokenizer.warm(model);
  }

  /** Stops both threads; work still waiting fails. */
  async close(): Promise<void> {
    this.tokenIds?.flush();
    await Promise.all([this.tokenizer.close(), this.templates.close()]);
  }
}

/**
 * A chat's prompt: rendered here when the template fits the serving thread's budget
 * (TEMPLATE_LIMITS.inlineSteps), else in the template thread (a promise). Without threads (unit
 * tests, one-off tools) it renders here within the whole TEMPLATE_LIMITS. Throws TemplateError.
 */
export function renderChatPrompt(
  model: CatalogueModel,
  messages: readonly ChatTurn[],
  threads: OffThreadPrompts | null,
): PromptText | Promise<PromptText> {
  const tokenizer = model.folder.tokenizer;
  if (threads === null) return tokenizer.renderChat(messages);
  return tokenizer.renderChatInline(messages) ?? threads.render(model, messages);
}

/**
 * A prompt's ids: encoded here when short or mostly cached (encodesInline), else in the
 * tokenizer thread (a promise). The cache includes the ids remembered before a restart
 * (TokenIdMemory), so a resumed conversation is not tokenized again.
 */
export function encodePromptIds(
  model: CatalogueModel,
  prompt: PromptText,
  threads: OffThreadPrompts | null,
): number[] | Promise<number[]> {
  const tokenizer = model.folder.tokenizer;
  threads?.tokenIds?.attach(model);
  if (threads === null || encodesInline(tokenizer, prompt)) return tokenizer.encodePrompt(prompt);
  return threads.encode(model, prompt);
}
