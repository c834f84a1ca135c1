// What crosses between the catalogue and the listing thread: plain data only (structured
// clone), so a folder's tokenizer is sent as its facts (TokenizerFacts), never as the instance.

import type { DefaultSampling } from '../genai/genai-config';
import type { VariantGraph } from '../inspect-variant';
import type { ModelFolder } from '../load-folder';
import type { UnusableStatus } from '../listing-status';
import type { ContentRevisions } from '../revisions';
import type { GgufConversion } from '../gguf/gguf-listing';
import type { TokenizerFacts } from '../../tokenize/tokenizer';

/**
 * Budgets for listing one model (a folder or a GGUF set), so no file can hold the listing for
 * long or keep memory: the listing thread is ended past either, its work thrown away.
 */
export const LISTING_BUDGET = {
  /** Wall time to read and check one model, thread start included. Real ones take well under a second or two. */
  maxMs: 30_000,
  /** The listing thread's JavaScript heap; a file that needs more is refused. */
  maxHeapMb: 1024,
  /** Messages in the conversation a chat template is test-rendered on at listing (TEMPLATE_LIMITS bounds its work). */
  numSampleMessages: 200,
} as const;

/** A model to list: a folder, or a GGUF file (a split set's first shard). */
export interface ListingJob {
  id: number;
  kind: 'folder' | 'gguf';
  path: string;
  /** Where GGUF models are converted into; null: GGUFs are described, not run. */
  convertedDir: string | null;
  /** A store's sampling for a GGUF (Ollama's parameters), or null. */
  defaultSampling: DefaultSampling | null;
  /** Send the tokenizer's facts (ListingResult.tokenizerFacts); absent: false. */
  isSendingTokenizer?: boolean;
}

/** A model folder as listing read it, less its tokenizer (sent as facts, or rebuilt from the same files when used). */
export type ListedFolder = Omit<ModelFolder, 'tokenizer'>;

/** A GGUF's parts beyond its folder: its graph (converted or predicted), revisions and pending conversion. */
export interface ListedGguf {
  graph: VariantGraph;
  revisions: ContentRevisions;
  conversion: GgufConversion | null;
}

/**
 * What listing made of a model: its folder (and a GGUF's parts), or why it cannot run. A broken
 * folder's problem names its file; a broken GGUF's problem follows the file's name.
 */
export type ListingResult =
  | {
      status: 'ok';
      folder: ListedFolder;
      gguf: ListedGguf | null;
      /**
       * What the serving thread needs of the tokenizer listing built (a 128k-token vocabulary's
       * takes hundreds of milliseconds to build), so it never builds it; null unless asked.
       */
      tokenizerFacts: TokenizerFacts | null;
    }
  | { status: UnusableStatus; problem: string };

/** The listing thread's answer to one job. */
export interface ListingReply {
  id: number;
  result: ListingResult;
}
