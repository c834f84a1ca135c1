import type { ClientStamps } from '../../telemetry/timeline/remote-facts';

/**
 * How a remote answer failed, for a message on that answer and nothing else. `invalid`: it was
 * never sent (an unknown endpoint, an unreadable key); `timeout`: the first-byte or idle limit
 * passed (stream-call.ts).
 */
export const REMOTE_FAILURES = [
  'invalid',
  'connect',
  'http',
  'malformed',
  'cut',
  'server',
  'timeout',
  'cancelled',
] as const;
/** See REMOTE_FAILURES. */
export type RemoteFailureKind = (typeof REMOTE_FAILURES)[number];

/** A failure with its kind and a message that says what to fix. */
export interface RemoteFailure {
  kind: RemoteFailureKind;
  message: string;
}

/** Token counts as the server's `usage` reported them (OpenAI names; Ollama's mapped). */
export interface RemoteUsage {
  /** Null when the server did not say (Ollama omits it for a fully cached prompt). */
  promptTokens: number | null;
  completionTokens: number;
  cachedTokens: number | null;
}

/**
 * Everything the client saw of one streamed answer: its stamps, one stamp per event that
 * carried text, the text, the server's usage and whatever timing objects it sent as they
 * were (mapped onto parts by the engine mappers, never here).
 */
export interface RemoteObservation {
  stamps: ClientStamps;
  contentAts: number[];
  text: string;
  httpStatus: number | null;
  serverRequestId: string | null;
  /** The finish reason the server sent (OpenAI's, or Ollama's done_reason). */
  finishReason: string | null;
  usage: RemoteUsage | null;
  /** `timings` (First Frame, llama.cpp server) from the last event that had one. */
  timings: Record<string, unknown> | null;
  /** vLLM's per-request `metrics` (with --enable-per-request-metrics). */
  metrics: Record<string, unknown> | null;
  /** Ollama's final native event (its `*_duration` fields, ns). */
  ollamaFinal: Record<string, unknown> | null;
  /** The client cut the stream at the request's token budget (the server streamed past it). */
  isCutAtMaxTokens: boolean;
  failure: RemoteFailure | null;
}

/** A fresh observation whose send stamp is `sentAt`. */
export function emptyObservation(sentAt: number): RemoteObservation {
  return {
    stamps: {
      sentAt,
      headersAt: null,
      firstByteAt: null,
      firstContentAt: null,
      lastChunkAt: null,
      endedAt: sentAt,
    },
    contentAts: [],
    text: '',
    httpStatus: null,
    serverRequestId: null,
    finishReason: null,
    usage: null,
    timings: null,
    metrics: null,
    ollamaFinal: null,
    isCutAtMaxTokens: false,
    failure: null,
  };
}
