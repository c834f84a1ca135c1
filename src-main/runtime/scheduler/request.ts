import type { Timeline } from '../../telemetry/timeline/schema';
import type { ChatTurn } from '../tokenize/tokenizer';
import type { KeepAlive } from '../../telemetry/residency/schema';

/** What a caller asks the runtime for: a chat (templated) or raw text prompt and how to sample. */
export interface GenerationRequest {
  requestId: string;
  modelId?: string;
  prompt: { kind: 'chat'; messages: ChatTurn[] } | { kind: 'text'; text: string };
  temperature?: number;
  topK?: number;
  topP?: number;
  /** Min-p and the penalties (SAMPLING_LIMITS says each one's meaning and bounds). */
  minP?: number;
  repeatPenalty?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  maxTokens?: number;
  stop?: string[];
  /** Keep generating through end-of-turn tokens until maxTokens (vLLM's ignore_eos, for benchmarks). */
  ignoreEos?: boolean;
  /** Give up (finish `deadline`) this many ms after arrival. */
  deadlineMs?: number;
  keepAlive?: KeepAlive;
  conversationId?: string | null;
  runId?: string | null;
  /** Monotonic arrival instant if the transport stamped it earlier than submit (ms). */
  arrivedAt?: number;
}

/** One streamed piece of an answer: new text and the token ids that produced it. */
export interface GenerationChunk {
  requestId: string;
  text: string;
  tokenIds: number[];
  /** Tokens in the chunk when no ids are known (a remote engine's text event counts as one). */
  numTokens?: number;
}

/** How a request ended, with its full checked timeline. */
export interface GenerationOutcome {
  requestId: string;
  text: string;
  timeline: Timeline;
  /** A message for `error` and `rejected` finishes (what to fix), else null. */
  errorMessage: string | null;
  errorCode: 'invalid_input' | 'not_found' | 'queue_full' | 'unavailable' | 'internal' | null;
}

/**
 * Where a request's output goes. `onChunk` must hand the chunk to the transport before it
 * returns: the first return ends server TTFT (the flush).
 */
export interface GenerationSink {
  onQueued?(position: number): void;
  onChunk(chunk: GenerationChunk): void;
  onDone(outcome: GenerationOutcome): void;
}
