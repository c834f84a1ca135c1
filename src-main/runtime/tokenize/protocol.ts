import type { ChatInput } from './tokenizer';

/** A request to the tokenizer thread: encode `text` with the tokenizer of the folder at `folder` (nothing added). */
export interface EncodeJob {
  id: number;
  /** The model folder, or the GGUF file (`isGguf`) whose metadata holds the tokenizer. */
  folder: string;
  isGguf: boolean;
  /** Keys the worker's cache: a changed tokenizer gets a fresh instance. */
  tokenizerRevision: string;
  text: string;
  /** A chat's placeholders (PromptText.literals): what each stands for, as plain text. */
  literals: readonly string[];
  /**
   * Pieces of `text` the serving thread's cache already holds, with their ids (remembered ids
   * included, so a history resumed after a restart is not encoded again): taken as cached.
   */
  held: [string, number[]][];
}

/**
 * The tokenizer thread's answer: the ids (and how many each part of the text gave, so the
 * serving thread's cache learns them: TextTokenizer.learn), or why it could not encode.
 */
export type EncodeReply =
  { id: number; ids: number[]; numIdsPerPart: number[] | null } | { id: number; error: string };

/**
 * A request to the template thread: render a chat template over variables already prepared on
 * the serving thread (TextTokenizer.chatInput: message text escaped), within TEMPLATE_LIMITS.
 */
export interface RenderJob {
  id: number;
  /** The template's text (the thread keeps the few it parsed last). */
  source: string;
  items: ChatInput['items'];
  inputChars: number;
}

/** The template thread's answer: the rendered text and the steps it took, or the TemplateError's message. */
export type RenderReply = { id: number; text: string; numSteps: number } | { id: number; error: string };
