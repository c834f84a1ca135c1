import type { EventSplitter } from './event-splitters';
import { ndjsonSplitter, sseSplitter } from './event-splitters';
import { describeFetchError, describeHttpError } from './fetch-errors';
import type { RemoteObservation } from './observation';
import { emptyObservation } from './observation';
import type { EventEffect } from './protocol-events';
import { applyOllamaEvent, applyOpenAiEvent, MalformedEvent, ServerSaidError } from './protocol-events';

/** The two wire protocols: OpenAI's server-sent events, Ollama's native NDJSON. */
export type StreamProtocol = 'openai' | 'ollama';

/** One streamed call to make. Headers carry the key; they are never logged or returned. */
export interface StreamCall {
  url: string;
  headers: Record<string, string>;
  body: object;
  protocol: StreamProtocol;
  /** This process's monotonic clock (ms): every stamp is taken with it. */
  now: () => number;
  signal?: AbortSignal;
  /** Called with each piece of answer text as it arrives, with its stamp. */
  onText?: (text: string, at: number) => void;
}

/**
 * Sends one streamed request and stamps what arrives: headers, first byte, every event with
 * text, the last event. Never throws: a refused connection, an HTTP error, a malformed event,
 * an error event, a stream that stops before its end, or a cancel becomes `failure`.
 */
export async function streamCall(call: StreamCall): Promise<RemoteObservation> {
  const seen = emptyObservation(call.now());
  try {
    const response = await fetch(call.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      redirect: 'error',
      ...(call.signal ? { signal: call.signal } : {}),
    });
    seen.stamps.headersAt = call.now();
    seen.httpStatus = response.status;
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      seen.failure = { kind: 'http', message: describeHttpError(response.status, text) };
    } else {
      await readEvents(response.body, call, seen);
    }
  } catch (error) {
    seen.failure = failureOf(error, call, seen);
  }
  seen.stamps.endedAt = call.now();
  return seen;
}

async function readEvents(
  body: ReadableStream<Uint8Array>,
  call: StreamCall,
  seen: RemoteObservation,
): Promise<void> {
  const splitter: EventSplitter = call.protocol === 'openai' ? sseSplitter() : ndjsonSplitter();
  const apply = call.protocol === 'openai' ? applyOpenAiEvent : applyOllamaEvent;
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let isDone = false;
  try {
    while (!isDone) {
      const { done, value } = await reader.read();
      if (done) break;
      const at = call.now();
      seen.stamps.firstByteAt ??= at;
      for (const payload of splitter.push(decoder.decode(value, { stream: true }))) {
        seen.stamps.lastChunkAt = at;
        isDone = onEffect(apply(seen, payload), at, call, seen) || isDone;
      }
    }
    const rest = splitter.rest();
    if (!isDone && rest !== null && call.protocol === 'ollama')
      isDone = onEffect(apply(seen, rest), seen.stamps.lastChunkAt ?? call.now(), call, seen);
  } finally {
    if (!isDone) await reader.cancel().catch(() => undefined); // the failure is already recorded
  }
  const isComplete = isDone || seen.finishReason !== null;
  if (!isComplete)
    seen.failure = {
      kind: 'cut',
      message: `the stream stopped mid-answer after ${seen.contentAts.length} text events (no finish reason, no end marker)`,
    };
}

/** Records the effect of one event; true when the stream says it is complete. */
function onEffect(effect: EventEffect, at: number, call: StreamCall, seen: RemoteObservation): boolean {
  if (effect.kind === 'text') {
    seen.stamps.firstContentAt ??= at;
    seen.contentAts.push(at);
    seen.text += effect.text;
    call.onText?.(effect.text, at);
    return seen.ollamaFinal !== null;
  }
  return effect.kind === 'done';
}

function failureOf(error: unknown, call: StreamCall, seen: RemoteObservation): RemoteObservation['failure'] {
  if (error instanceof MalformedEvent) return { kind: 'malformed', message: error.message };
  if (error instanceof ServerSaidError) return { kind: 'server', message: error.message };
  if (call.signal?.aborted) return { kind: 'cancelled', message: 'cancelled' };
  if (seen.stamps.headersAt !== null)
    return {
      kind: 'cut',
      message: `the connection broke mid-answer after ${seen.contentAts.length} text events (${describeFetchError(error, call.url)})`,
    };
  return { kind: 'connect', message: describeFetchError(error, call.url) };
}
