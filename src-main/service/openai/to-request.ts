import type { ChatTurn } from '../../runtime/tokenize/tokenizer';
import type { GenerationRequest } from '../../runtime/scheduler/request';
import { SAMPLING_WIRE_NAMES } from '../../runtime/sampling/limits';
import type { WireSamplingKey } from '../../runtime/sampling/limits';
import { fromZod } from './errors';
import type { ChatCompletionBody, ChatMessageBody, CompletionBody } from './schemas';
import { ChatCompletionBodySchema, CompletionBodySchema } from './schemas';
import type { OpenAiEndpoint, OpenAiFailure } from './types';

/** A validated body of either endpoint. */
export type ParsedBody =
  { endpoint: 'chat'; body: ChatCompletionBody } | { endpoint: 'text'; body: CompletionBody };

/** Validates a raw JSON body for `endpoint`; a failure names the first bad field (400). */
export function parseBody(endpoint: OpenAiEndpoint, raw: unknown): ParsedBody | OpenAiFailure {
  if (endpoint === 'chat') {
    const parsed = ChatCompletionBodySchema.safeParse(raw);
    return parsed.success ? { endpoint, body: parsed.data } : fromZod(parsed.error);
  }
  const parsed = CompletionBodySchema.safeParse(raw);
  return parsed.success ? { endpoint, body: parsed.data } : fromZod(parsed.error);
}

/** A message's text: a string, or its text parts joined; `developer` is a system message. */
function toTurn(message: ChatMessageBody): ChatTurn {
  const content =
    message.content === null
      ? ''
      : typeof message.content === 'string'
        ? message.content
        : message.content.map((p) => p.text).join('');
  return { role: message.role === 'developer' ? 'system' : message.role, content };
}

/** Keeps only the fields that were given, so the runtime's defaults apply to the rest. */
function defined<T extends object>(fields: T): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  ) as { [K in keyof T]?: NonNullable<T[K]> };
}

/** The body's sampling settings under the runtime's names (SAMPLING_WIRE_NAMES). */
function samplingOf(body: ChatCompletionBody | CompletionBody): { [K in WireSamplingKey]?: number | null } {
  const wire = body as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(SAMPLING_WIRE_NAMES).map(([ours, theirs]) => [
      ours,
      wire[theirs] as number | null | undefined,
    ]),
  );
}

/**
 * The runtime request for a validated body: chat messages are templated by the runtime
 * (prompt kind `chat`), a completion prompt is raw text (kind `text`). `max_completion_tokens`
 * wins over the older `max_tokens` when both are sent.
 */
export function toGenerationRequest(
  parsed: ParsedBody,
  requestId: string,
  arrivedAt: number | undefined,
  deadlineMs?: number,
): GenerationRequest {
  const { body } = parsed;
  const prompt: GenerationRequest['prompt'] =
    parsed.endpoint === 'chat'
      ? { kind: 'chat', messages: parsed.body.messages.map(toTurn) }
      : {
          kind: 'text',
          text: typeof parsed.body.prompt === 'string' ? parsed.body.prompt : parsed.body.prompt[0]!,
        };
  const maxTokens =
    parsed.endpoint === 'chat' ? (parsed.body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
  return {
    requestId,
    prompt,
    ...defined({
      modelId: body.model,
      maxTokens,
      ...samplingOf(body),
      ignoreEos: body.ignore_eos,
      stop: typeof body.stop === 'string' ? [body.stop] : body.stop,
      runId: body.first_frame?.run_id,
      conversationId: body.first_frame?.conversation_id,
      arrivedAt,
      deadlineMs,
    }),
  };
}
