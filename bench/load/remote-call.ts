import { streamCall } from '../../src-main/runtime/remote/stream-call';
import type { RemoteObservation } from '../../src-main/runtime/remote/observation';
import type { ClientObservation, Target } from './client';
import { clientNow } from './client';

/**
 * Sends one streamed chat to a remote engine through the remote client (its stamps: send,
 * headers, first byte, every text event, last event, on `clientNow`) and returns what it saw
 * both ways: as the remote observation timelines and trace records are made of, and as the
 * lab's summary reads it. `body` is OpenAI's chat body; with `isOllamaNative` it goes to
 * Ollama's `/api/chat` instead (the only API where Ollama reports its durations). A failure
 * (refused, HTTP error, malformed or cut stream) is a value.
 */
export async function remoteStreamChat(
  target: Target,
  body: OpenAiChatBody,
  isOllamaNative: boolean,
): Promise<{ seen: ClientObservation; remote: RemoteObservation }> {
  const remote = await streamCall({
    ...(isOllamaNative
      ? { url: `${new URL(target.baseUrl).origin}/api/chat`, protocol: 'ollama', body: ollamaBodyOf(body) }
      : {
          url: `${target.baseUrl}/chat/completions`,
          protocol: 'openai',
          body: { ...body, stream: true, stream_options: { include_usage: true } },
        }),
    headers: target.apiKey ? { Authorization: `Bearer ${target.apiKey}` } : {},
    now: clientNow,
  });
  return { seen: clientObservationOf(remote), remote };
}

/** The fields of OpenAI's chat body the lab sends (and Ollama's native body is made from). */
export interface OpenAiChatBody {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens: number;
  temperature: number;
  seed: number;
  [extra: string]: unknown;
}

/** Ollama's native chat body for the same request (it has no ignore_eos). */
function ollamaBodyOf(body: OpenAiChatBody): object {
  return {
    model: body.model,
    messages: body.messages,
    stream: true,
    options: { temperature: body.temperature, seed: body.seed, num_predict: body.max_tokens },
  };
}

/** The lab's view of a remote observation: the same stamps, usage in OpenAI's names. */
export function clientObservationOf(remote: RemoteObservation): ClientObservation {
  const usage = remote.usage;
  return {
    httpStatus: remote.httpStatus ?? 0,
    sentAt: remote.stamps.sentAt,
    chunkAts: [...remote.contentAts],
    doneAt: remote.stamps.endedAt,
    text: remote.text,
    requestId: remote.serverRequestId,
    finishReason: remote.failure ? null : remote.finishReason,
    usage: usage
      ? {
          prompt_tokens: usage.promptTokens ?? 0,
          completion_tokens: usage.completionTokens,
          ...(usage.cachedTokens === null
            ? {}
            : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
        }
      : null,
    timings: (remote.timings as ClientObservation['timings']) ?? null,
    errorMessage: remote.failure?.message ?? null,
  };
}
