import { SseDataParser } from './sse';

/** Where the load goes: the API's base URL (…/v1) and its key, if any. */
export interface Target {
  baseUrl: string;
  apiKey: string | null;
}

/**
 * The client's clock: `performance.timeOrigin + performance.now()`, which lines up across the
 * threads of one process, so an in-process server's arrival stamp and this send stamp are on
 * one clock (a server in another process is not: only durations compare there).
 */
export const clientNow = (): number => performance.timeOrigin + performance.now();

/**
 * What the client saw of one streamed request, on its own clock (`clientNow`): when it sent,
 * when each content chunk arrived, and what the server reported in usage and timings.
 */
export interface ClientObservation {
  httpStatus: number;
  sentAt: number;
  chunkAts: number[];
  doneAt: number;
  text: string;
  requestId: string | null;
  finishReason: string | null;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens?: number };
  } | null;
  timings: Record<string, number | string | boolean | null> | null;
  errorMessage: string | null;
}

interface ChunkData {
  id?: string;
  choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
  usage?: ClientObservation['usage'];
  timings?: ClientObservation['timings'];
  error?: { message?: string };
}

/** Sends one streamed chat completion and stamps every content chunk as it arrives. */
export async function streamChat(target: Target, body: object): Promise<ClientObservation> {
  const seen: ClientObservation = {
    httpStatus: 0,
    sentAt: clientNow(),
    chunkAts: [],
    doneAt: 0,
    text: '',
    requestId: null,
    finishReason: null,
    usage: null,
    timings: null,
    errorMessage: null,
  };
  try {
    const response = await fetch(`${target.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(target.apiKey ? { Authorization: `Bearer ${target.apiKey}` } : {}),
      },
      body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    });
    seen.httpStatus = response.status;
    if (!response.ok || !response.body) {
      seen.errorMessage = await errorMessageOf(response);
    } else {
      await readStream(response.body, seen);
    }
  } catch (error) {
    seen.errorMessage = (error as Error).message;
  }
  seen.doneAt = clientNow();
  return seen;
}

async function readStream(body: ReadableStream<Uint8Array>, seen: ClientObservation): Promise<void> {
  const parser = new SseDataParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    const at = clientNow();
    for (const data of parser.push(decoder.decode(value, { stream: true }))) {
      if (data === '[DONE]') continue;
      observe(JSON.parse(data) as ChunkData, at, seen);
    }
  }
}

function observe(chunk: ChunkData, at: number, seen: ClientObservation): void {
  if (chunk.error) seen.errorMessage = chunk.error.message ?? 'error event';
  seen.requestId ??= chunk.id ?? null;
  const choice = chunk.choices?.[0];
  if (choice?.delta?.content !== undefined) {
    seen.chunkAts.push(at);
    seen.text += choice.delta.content;
  }
  if (choice?.finish_reason) seen.finishReason = choice.finish_reason;
  if (chunk.usage) seen.usage = chunk.usage;
  if (chunk.timings) seen.timings = chunk.timings;
}

async function errorMessageOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as ChunkData).error?.message ?? text;
  } catch {
    return text || `HTTP ${response.status}`;
  }
}
