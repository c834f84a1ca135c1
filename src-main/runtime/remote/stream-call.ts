import { REMOTE_LIMITS } from '../../limits';
import { MAX_OUTPUT_TOKENS_BOUND, SETTINGS } from '../settings/declaration';
import { readBounded } from './bounded-body';
import { sendWatchingConnect } from './connect-watch';
import type { EventSplitter } from './event-splitters';
import { ndjsonSplitter, sseSplitter } from './event-splitters';
import { describeFetchError, describeHttpError, safeOrigin } from './fetch-errors';
import type { RemoteObservation } from './observation';
import { emptyObservation } from './observation';
import type { EventEffect } from './protocol-events';
import { applyOllamaEvent, applyOpenAiEvent, MalformedEvent, ServerSaidError } from './protocol-events';

/** The two wire protocols: OpenAI's server-sent events, Ollama's native NDJSON. */
export type StreamProtocol = 'openai' | 'ollama';

/** How long a streamed answer may keep the client waiting, and how much of it is read. */
export interface StreamBounds {
  /** The request created → on a connected socket, TCP and TLS done (ms). */
  connectMs: number;
  /** Send → the first event (ms): covers connecting, the headers and a server loading a model. */
  firstByteMs: number;
  /** Longest silence between two events once the first arrived (ms). */
  idleMs: number;
  /** The answer's token budget: text past it (or past its characters) is not read, the stream is cut. */
  maxTokens: number;
}

/** The bounds a call without its own gets (the first-byte limit's setting default). */
export const DEFAULT_STREAM_BOUNDS: StreamBounds = {
  connectMs: REMOTE_LIMITS.connectTimeoutMs,
  firstByteMs: SETTINGS.remoteFirstByteMs.defaultValue,
  idleMs: REMOTE_LIMITS.idleTimeoutMs,
  maxTokens: MAX_OUTPUT_TOKENS_BOUND,
};

/** One streamed call to make. Headers carry the key; they are never logged or returned. */
export interface StreamCall {
  url: string;
  headers: Record<string, string>;
  body: object;
  protocol: StreamProtocol;
  /** This process's monotonic clock (ms): every stamp is taken with it. */
  now: () => number;
  /** Calls `fire` once `now()` reaches `atMs` (the Clock's callAt); default: a real timer. */
  callAt?: (atMs: number, fire: () => void) => () => void;
  bounds?: Partial<StreamBounds>;
  signal?: AbortSignal;
  /** Called with each piece of answer text as it arrives, with its stamp. */
  onText?: (text: string, at: number) => void;
}

/** A call's state while it runs: its observation, bounds, and the limit that stopped it, if any. */
interface Running {
  call: StreamCall;
  seen: RemoteObservation;
  bounds: StreamBounds;
  /** Aborts the request (fetch and body) when a limit passes or the budget is spent. */
  stop: AbortController;
  /** The limit that stopped it, in words; null while none did. */
  limitHit: string | null;
  /** (Re)arms the one watchdog: `words` become the failure if `ms` pass first. */
  arm(ms: number, words: string): void;
  /** Arms the connect limit (Infinity disarms it): a second watchdog, beside the first-byte one. */
  armConnect(ms: number): void;
  numEvents: number;
}

/**
 * Sends one streamed request and stamps what arrives: headers, first byte, every event with
 * text, the last event. Never throws: a refused connection, an HTTP error, a malformed or
 * oversized event, an error event, a stream that stops before its end, a server silent past
 * the first-byte or idle limit, or a cancel becomes `failure`. Text past the token budget is
 * not read: the stream is cut (finish `length`) and the request aborted.
 */
export async function streamCall(call: StreamCall): Promise<RemoteObservation> {
  const run = start(call);
  const { seen } = run;
  const signal = call.signal ? AbortSignal.any([call.signal, run.stop.signal]) : run.stop.signal;
  try {
    const connecting = {
      onRequest: () => run.armConnect(run.bounds.connectMs),
      onConnected: () => run.armConnect(Infinity),
    };
    const response = await sendWatchingConnect(connecting, () =>
      fetch(call.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...call.headers },
        body: JSON.stringify(call.body),
        redirect: 'error',
        signal,
      }),
    );
    run.armConnect(Infinity);
    seen.stamps.headersAt = call.now();
    seen.httpStatus = response.status;
    if (!response.ok || !response.body) {
      const { text } = await readBounded(response, REMOTE_LIMITS.maxErrorBodyBytes);
      seen.failure = { kind: 'http', message: describeHttpError(response.status, text) };
    } else {
      await readEvents(response.body, run);
    }
  } catch (error) {
    seen.failure = failureOf(error, run);
  }
  run.arm(Infinity, '');
  run.armConnect(Infinity);
  seen.stamps.endedAt = call.now();
  return seen;
}

function start(call: StreamCall): Running {
  const bounds = { ...DEFAULT_STREAM_BOUNDS, ...call.bounds };
  const callAt =
    call.callAt ??
    ((atMs: number, fire: () => void) => {
      const timer = setTimeout(fire, Math.max(0, atMs - call.now()));
      timer.unref();
      return () => clearTimeout(timer);
    });
  let cancelTimer = (): void => undefined;
  let cancelConnectTimer = (): void => undefined;
  const where = safeOrigin(call.url);
  const run: Running = {
    call,
    seen: emptyObservation(call.now()),
    bounds,
    stop: new AbortController(),
    limitHit: null,
    numEvents: 0,
    arm(ms, words) {
      cancelTimer();
      if (ms === Infinity) return;
      cancelTimer = callAt(call.now() + ms, () => {
        run.limitHit = words;
        run.stop.abort();
      });
    },
    armConnect(ms) {
      cancelConnectTimer();
      if (ms === Infinity) return;
      cancelConnectTimer = callAt(call.now() + ms, () => {
        run.limitHit = `${where} did not complete the connection within ${secondsOf(ms)} (the remote connect limit)`;
        run.stop.abort();
      });
    },
  };
  run.arm(
    bounds.firstByteMs,
    `${where} sent nothing within ${secondsOf(bounds.firstByteMs)} of the request (the remote first-byte limit, in Settings)`,
  );
  return run;
}

async function readEvents(body: ReadableStream<Uint8Array>, run: Running): Promise<void> {
  const { call, seen } = run;
  const splitter: EventSplitter = call.protocol === 'openai' ? sseSplitter() : ndjsonSplitter();
  const apply = call.protocol === 'openai' ? applyOpenAiEvent : applyOllamaEvent;
  const decoder = new TextDecoder();
  const maxChars = maxStreamChars(run.bounds.maxTokens);
  let numChars = 0;
  const reader = body.getReader();
  let state: 'more' | 'done' | 'cut' = 'more';
  try {
    while (state === 'more') {
      const { done, value } = await reader.read();
      if (done) break;
      const at = call.now();
      seen.stamps.firstByteAt ??= at;
      const text = decoder.decode(value, { stream: true });
      numChars += text.length;
      if (numChars > maxChars)
        throw new MalformedEvent(
          `the server sent more than ${Math.ceil(maxChars / 2 ** 20)} MiB for an answer of at most ${run.bounds.maxTokens} tokens: not read further`,
        );
      for (const payload of splitter.push(text)) {
        seen.stamps.lastChunkAt = at;
        state = onEvent(run, apply(seen, payload), at);
        if (state !== 'more') break;
      }
    }
    const rest = splitter.rest();
    if (state === 'more' && rest !== null && call.protocol === 'ollama')
      state = onEvent(run, apply(seen, rest), seen.stamps.lastChunkAt ?? call.now());
  } finally {
    // Cancelling closes the connection: a server streaming past the budget is not read on.
    if (state !== 'done') await reader.cancel().catch(() => undefined); // the outcome is already recorded
  }
  const isComplete = state !== 'more' || seen.finishReason !== null;
  if (!isComplete)
    seen.failure = {
      kind: 'cut',
      message: `the stream stopped mid-answer after ${seen.contentAts.length} text events (no finish reason, no end marker)`,
    };
}

/** Records one event's effect and rearms the idle limit; `cut` when the token budget is spent. */
function onEvent(run: Running, effect: EventEffect, at: number): 'more' | 'done' | 'cut' {
  const { call, seen, bounds } = run;
  run.numEvents += 1;
  run.arm(
    bounds.idleMs,
    `${safeOrigin(call.url)} went silent for ${secondsOf(bounds.idleMs)} mid-answer (the limit between two events)`,
  );
  if (run.numEvents > bounds.maxTokens + REMOTE_LIMITS.maxEventsBeyondTokens) return cutAtBudget(seen);
  if (effect.kind !== 'text') return effect.kind === 'done' ? 'done' : 'more';
  const maxChars = bounds.maxTokens * REMOTE_LIMITS.maxCharsPerToken;
  if (seen.contentAts.length >= bounds.maxTokens || seen.text.length >= maxChars) return cutAtBudget(seen);
  const text = effect.text.slice(0, maxChars - seen.text.length);
  seen.stamps.firstContentAt ??= at;
  seen.contentAts.push(at);
  seen.text += text;
  call.onText?.(text, at);
  if (text.length < effect.text.length) return cutAtBudget(seen);
  return seen.ollamaFinal !== null ? 'done' : 'more';
}

/**
 * The characters a stream may send for an answer of `maxTokens`: every event it may send at
 * the average event size, plus one largest event. Keep-alive comments count too, so a server
 * cannot keep the client parsing without end.
 */
function maxStreamChars(maxTokens: number): number {
  const numEvents = maxTokens + REMOTE_LIMITS.maxEventsBeyondTokens;
  return numEvents * REMOTE_LIMITS.maxCharsPerEvent + REMOTE_LIMITS.maxEventChars;
}

function cutAtBudget(seen: RemoteObservation): 'cut' {
  seen.isCutAtMaxTokens = true;
  return 'cut';
}

function failureOf(error: unknown, run: Running): RemoteObservation['failure'] {
  const { call, seen } = run;
  if (error instanceof MalformedEvent) return { kind: 'malformed', message: error.message };
  if (error instanceof ServerSaidError) return { kind: 'server', message: error.message };
  if (run.limitHit !== null) return { kind: 'timeout', message: run.limitHit };
  if (call.signal?.aborted) return { kind: 'cancelled', message: 'cancelled' };
  if (seen.stamps.headersAt !== null)
    return {
      kind: 'cut',
      message: `the connection broke mid-answer after ${seen.contentAts.length} text events (${describeFetchError(error, call.url)})`,
    };
  return { kind: 'connect', message: describeFetchError(error, call.url) };
}

/** A limit in words: whole seconds, or ms under one. */
function secondsOf(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}
