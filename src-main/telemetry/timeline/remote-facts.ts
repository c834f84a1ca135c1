import { z } from 'zod';
import { TTFT_PARTS } from './parts';

/**
 * Serving engines whose timing fields First Frame reads. `openai`: any OpenAI-compatible
 * server that reports nothing beyond usage (its parts all stay unattributed).
 */
export const REMOTE_ENGINES = ['first-frame', 'llama.cpp', 'ollama', 'vllm', 'openai'] as const;
/** See REMOTE_ENGINES. */
export type RemoteEngineName = (typeof REMOTE_ENGINES)[number];

/** Whose fields a server's report of one request was read from; `none`: it sent none. */
export const REPORT_SOURCES = [
  'first-frame-timings',
  'llama.cpp-timings',
  'ollama-durations',
  'vllm-request-metrics',
  'none',
] as const;
/** See REPORT_SOURCES. */
export type ReportSource = (typeof REPORT_SOURCES)[number];

const ms = z.number().finite();

/**
 * What a request sent to a remote engine adds to its timeline. Its timeline's boundary is the
 * client's (this process): arrival is the send, TTFT the first content received; the parts
 * are the durations the server reported, and everything else before the first content —
 * network both ways, and server work it does not report — is unattributed. Client stamps are
 * durations from the send (ms, this process's clock); the server's are placed on that clock
 * only with the stated uncertainty, or not at all (`placementProblem`).
 */
export const RemoteFactsSchema = z.object({
  endpointId: z.string(),
  endpointName: z.string(),
  baseUrl: z.string(),
  engine: z.enum(REMOTE_ENGINES),
  /** The model as the server names it. */
  serverModelId: z.string(),
  serverRequestId: z.string().nullable(),
  reportSource: z.enum(REPORT_SOURCES),
  /** The parts the server reported (the others are 0 because nothing was reported, not measured 0). */
  reportedParts: z.array(z.enum(TTFT_PARTS)),
  serverTtftMs: ms.nullable(),
  serverUnattributedMs: ms.nullable(),
  serverDecodeMs: ms.nullable(),
  /** The finish reason as the server sent it. */
  serverFinishReason: z.string().nullable(),
  /** Send → response headers, first body byte, first content, last event (ms). */
  headersMs: ms.nullable(),
  firstByteMs: ms.nullable(),
  firstContentMs: ms.nullable(),
  lastChunkMs: ms.nullable(),
  /** Send → the server's placed arrival (ms) and ± its uncertainty; null when not placed. */
  placedArrivalMs: ms.nullable(),
  placementUncertaintyMs: ms.nullable(),
  /** Why the server's stamps could not be placed in order on the client's clock (its parts are then left out). */
  placementProblem: z.string().nullable(),
  /** False when the server sent no usage: the token counts are what the client could count. */
  hasUsage: z.boolean(),
});
/** See RemoteFactsSchema. */
export type RemoteFacts = z.infer<typeof RemoteFactsSchema>;

/**
 * The client's stamps of one streamed request, on this process's monotonic clock (ms). Each
 * is taken where the client sees the event: before the request is written (`sentAt`), when
 * the status line and headers arrived, when the first body bytes arrived, when the first
 * event carrying answer text arrived, and when the last event arrived. The remote engine
 * records them; every interval between them is derived in derive.ts (`deriveRemote`).
 */
export interface ClientStamps {
  sentAt: number;
  headersAt: number | null;
  firstByteAt: number | null;
  firstContentAt: number | null;
  lastChunkAt: number | null;
  /** The stream closed, failed or was cancelled. */
  endedAt: number;
}
