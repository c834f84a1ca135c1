import type { FinishReason, Timeline } from '../../telemetry/timeline/schema';
import type { OpenAiEndpoint } from './types';
import { timingsOf, usageOf } from './timings';

/** What every response of one call shares: id, creation second, model and its endpoint. */
export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
  endpoint: OpenAiEndpoint;
  isStream: boolean;
  isUsageIncluded: boolean;
}

/** The finish reasons an answer carries: OpenAI's `stop` and `length`, and our `deadline`. */
export type OpenAiFinishReason = 'stop' | 'length' | 'deadline';

/**
 * Our finish reason on the wire: `stop` and `length` as OpenAI's; `deadline` (the request ran
 * past its deadline) as its own reason, so a client can tell a deadline cut from a length cut
 * (OpenAI's clients pass unknown reasons through). Other reasons are errors, not answers.
 */
export function openAiFinishReason(reason: FinishReason): OpenAiFinishReason | null {
  if (reason === 'stop' || reason === 'length' || reason === 'deadline') return reason;
  return null;
}

const objectOf = (who: ResponseIdentity, isChunk: boolean) =>
  who.endpoint === 'text' ? 'text_completion' : isChunk ? 'chat.completion.chunk' : 'chat.completion';

/** The non-streamed answer: `chat.completion` or `text_completion`, with usage and timings. */
export function completionBody(
  who: ResponseIdentity,
  text: string,
  timeline: Timeline,
  finish: OpenAiFinishReason,
) {
  const choice =
    who.endpoint === 'chat'
      ? {
          index: 0,
          message: { role: 'assistant' as const, content: text, refusal: null },
          logprobs: null,
          finish_reason: finish,
        }
      : { index: 0, text, logprobs: null, finish_reason: finish };
  return {
    id: who.id,
    object: objectOf(who, false),
    created: who.created,
    model: who.model,
    choices: [choice],
    usage: usageOf(timeline),
    timings: timingsOf(timeline),
  };
}

/** One streamed piece of text; the first chat chunk also carries `role: assistant`. */
export function deltaChunk(who: ResponseIdentity, text: string, isFirst: boolean) {
  const choice =
    who.endpoint === 'chat'
      ? {
          index: 0,
          delta: isFirst ? { role: 'assistant' as const, content: text } : { content: text },
          logprobs: null,
          finish_reason: null,
        }
      : { index: 0, text, logprobs: null, finish_reason: null };
  return withUsageSlot(who, {
    id: who.id,
    object: objectOf(who, true),
    created: who.created,
    model: who.model,
    choices: [choice],
  });
}

/**
 * The chunks that end a stream: the one carrying `finish_reason`, then (with include_usage)
 * one with empty `choices` and the usage. `timings` rides on the last of them.
 */
export function finalChunks(who: ResponseIdentity, timeline: Timeline, finish: OpenAiFinishReason): object[] {
  const choice =
    who.endpoint === 'chat'
      ? { index: 0, delta: {}, logprobs: null, finish_reason: finish }
      : { index: 0, text: '', logprobs: null, finish_reason: finish };
  const base = { id: who.id, object: objectOf(who, true), created: who.created, model: who.model };
  if (!who.isUsageIncluded) return [{ ...base, choices: [choice], timings: timingsOf(timeline) }];
  return [
    { ...base, choices: [choice], usage: null },
    { ...base, choices: [], usage: usageOf(timeline), timings: timingsOf(timeline) },
  ];
}

/** With include_usage, every chunk but the last carries `usage: null` (as OpenAI's do). */
function withUsageSlot<T extends object>(who: ResponseIdentity, chunk: T): T | (T & { usage: null }) {
  return who.isUsageIncluded ? { ...chunk, usage: null } : chunk;
}
