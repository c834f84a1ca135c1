import { streamCall } from '../../../runtime/remote';
import type { RemoteObservation } from '../../../runtime/remote';
import type { ClientObservation, Target } from './client';
import { clientNow } from './client';

/**
 * Sends one streamed chat completion to a remote engine through the remote client (its stamps:
 * send, headers, first byte, every text event, last event, on `clientNow`) and returns what it
 * saw both ways: as the remote observation timelines and trace records are made of, and as the
 * lab's summary reads it. A failure (refused, HTTP error, malformed or cut stream) is a value.
 */
export async function remoteStreamChat(
  target: Target,
  body: object,
): Promise<{ seen: ClientObservation; remote: RemoteObservation }> {
  const remote = await streamCall({
    url: `${target.baseUrl}/chat/completions`,
    headers: target.apiKey ? { Authorization: `Bearer ${target.apiKey}` } : {},
    body: { ...body, stream: true, stream_options: { include_usage: true } },
    protocol: 'openai',
    now: clientNow,
  });
  return { seen: clientObservationOf(remote), remote };
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
