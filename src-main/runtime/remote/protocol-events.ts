import { jsonTextWorkProblem } from '../../json-work';
import { REMOTE_LIMITS } from '../../limits';
import type { RemoteObservation } from './observation';

/** What one event did to the observation: the stream goes on, is complete, or failed. */
export type EventEffect = { kind: 'text'; text: string } | { kind: 'none' } | { kind: 'done' };

interface OpenAiChunk {
  id?: unknown;
  choices?: { delta?: { content?: unknown }; text?: unknown; finish_reason?: unknown }[];
  usage?: {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
  } | null;
  timings?: unknown;
  metrics?: unknown;
  error?: { message?: unknown } | string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const countOf = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;

/** Thrown for an event that cannot be read: the answer fails with this message. */
export class MalformedEvent extends Error {}
/** Thrown for an error the server sent inside the stream. */
export class ServerSaidError extends Error {}

/**
 * Applies one OpenAI chat-completion stream event (`data:` payload) to the observation:
 * content text, finish reason, usage, and the `timings` / `metrics` objects servers add.
 */
export function applyOpenAiEvent(seen: RemoteObservation, payload: string): EventEffect {
  if (payload.trim() === '[DONE]') return { kind: 'done' };
  const chunk = parseJson(payload) as OpenAiChunk;
  if (!isRecord(chunk)) throw new MalformedEvent(`a stream event that is not an object: ${clip(payload)}`);
  if (chunk.error !== undefined) {
    const error = chunk.error;
    const message = isRecord(error) ? error['message'] : error;
    throw new ServerSaidError(`the server ended the answer with an error: ${String(message ?? 'unknown')}`);
  }
  if (typeof chunk.id === 'string') seen.serverRequestId ??= chunk.id;
  if (isRecord(chunk.timings)) seen.timings = chunk.timings;
  if (isRecord(chunk.metrics)) seen.metrics = chunk.metrics;
  const usage = chunk.usage;
  if (isRecord(usage)) {
    const prompt = countOf(usage.prompt_tokens);
    const completion = countOf(usage.completion_tokens);
    const details = usage.prompt_tokens_details;
    if (prompt !== null && completion !== null)
      seen.usage = {
        promptTokens: prompt,
        completionTokens: completion,
        cachedTokens: isRecord(details) ? countOf(details['cached_tokens']) : null,
      };
  }
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (typeof choice?.finish_reason === 'string') seen.finishReason = choice.finish_reason;
  const text = choice?.delta?.content ?? choice?.text;
  return typeof text === 'string' && text !== '' ? { kind: 'text', text } : { kind: 'none' };
}

/**
 * Applies one line of Ollama's native `/api/chat` stream: `message.content` pieces, then a
 * final `done: true` line with `done_reason`, token counts and `*_duration` fields (ns).
 */
export function applyOllamaEvent(seen: RemoteObservation, payload: string): EventEffect {
  const line = parseJson(payload);
  if (!isRecord(line)) throw new MalformedEvent(`a stream line that is not an object: ${clip(payload)}`);
  if (line['error'] !== undefined)
    throw new ServerSaidError(`the server ended the answer with an error: ${String(line['error'])}`);
  const message = line['message'];
  const text = isRecord(message) && typeof message['content'] === 'string' ? message['content'] : '';
  if (line['done'] === true) {
    seen.ollamaFinal = line;
    seen.finishReason = typeof line['done_reason'] === 'string' ? line['done_reason'] : 'stop';
    const prompt = countOf(line['prompt_eval_count']);
    const completion = countOf(line['eval_count']);
    if (completion !== null)
      seen.usage = { promptTokens: prompt, completionTokens: completion, cachedTokens: null };
    return text ? { kind: 'text', text } : { kind: 'done' };
  }
  return text ? { kind: 'text', text } : { kind: 'none' };
}

/** Events up to this long are parsed unmeasured: no 4 KiB of JSON takes long to parse. */
const UNMEASURED_CHARS = 4_096;

function parseJson(payload: string): unknown {
  const problem =
    payload.length > UNMEASURED_CHARS ? jsonTextWorkProblem(payload, REMOTE_LIMITS.eventWork) : null;
  if (problem !== null) throw new MalformedEvent(`a stream event that ${problem}: not read`);
  try {
    return JSON.parse(payload);
  } catch {
    throw new MalformedEvent(`a stream event that is not JSON: ${clip(payload)}`);
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `"${line.slice(0, 79)}…"` : `"${line}"`;
}
