/** A request to the tokenizer thread: encode `text` with the tokenizer of the folder at `folder`. */
export interface EncodeJob {
  id: number;
  folder: string;
  /** Keys the worker's cache: a changed tokenizer gets a fresh instance. */
  tokenizerRevision: string;
  text: string;
}

/** The tokenizer thread's answer: the ids, or why it could not encode. */
export type EncodeReply = { id: number; ids: number[] } | { id: number; error: string };
