import { z } from 'zod';
import { SAMPLING_FIELD_SCHEMAS, SAMPLING_LIMITS } from '../../runtime/sampling/limits';
import { MAX_DEADLINE_MS } from '../../runtime/settings/declaration';
import { wellFormedText } from '../contract/text';

/**
 * Request bodies of the OpenAI-compatible routes, as zod schemas. Unknown fields are dropped
 * (as most local servers do); fields we know but cannot honour (n > 1, logprobs, tools,
 * logit_bias) are refused with a message naming them rather than silently ignored.
 */

const idSchema = z.string().min(1).max(200);

/**
 * Our extension: ties a request to a stored run and/or a conversation, and sets its deadline
 * (ms after arrival; the `x-first-frame-deadline-ms` header means the same). All optional.
 */
export const FirstFrameExtensionSchema = z.object({
  run_id: idSchema.nullish(),
  conversation_id: idSchema.nullish(),
  deadline_ms: z.number().int().min(1).max(MAX_DEADLINE_MS).nullish(),
});

const TextPartSchema = z.object({ type: z.literal('text'), text: wellFormedText() });

/** A chat message: string content or an array of text parts (other part types are refused). */
export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant'], {
    error: 'role must be system, developer, user or assistant (tool messages are not supported)',
  }),
  content: z.union([wellFormedText(), z.array(TextPartSchema), z.null()], {
    error:
      'content must be a string or an array of {"type": "text", "text": …} parts (only text is supported)',
  }),
});
export type ChatMessageBody = z.infer<typeof ChatMessageSchema>;

const unsupported = (name: string, allowed: string) => `${name} is not supported (only ${allowed})`;

/** Sampling and control fields shared by chat and text completions. */
const commonFields = {
  /** Absent or null: the default model (Settings → default model), as the setting's help says. */
  model: z.string().min(1, { error: 'model must name a model (GET /v1/models lists them)' }).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: SAMPLING_FIELD_SCHEMAS.maxTokens.nullish(),
  temperature: SAMPLING_FIELD_SCHEMAS.temperature.nullish(),
  top_p: SAMPLING_FIELD_SCHEMAS.topP.nullish(),
  /** Extension (llama.cpp, Ollama and vLLM accept it too): keep the k most likely tokens. */
  top_k: SAMPLING_FIELD_SCHEMAS.topK.nullish(),
  /** Extension (vLLM, llama.cpp): generate through end-of-turn tokens up to max_tokens. */
  ignore_eos: z.boolean().nullish(),
  /** Extension (llama.cpp, vLLM): keep tokens at least min_p times as likely as the likeliest. */
  min_p: SAMPLING_FIELD_SCHEMAS.minP.nullish(),
  /** Extension (llama.cpp's name): penalize the last 64 tokens of prompt + answer. */
  repeat_penalty: SAMPLING_FIELD_SCHEMAS.repeatPenalty.nullish(),
  presence_penalty: SAMPLING_FIELD_SCHEMAS.presencePenalty.nullish(),
  frequency_penalty: SAMPLING_FIELD_SCHEMAS.frequencyPenalty.nullish(),
  seed: SAMPLING_FIELD_SCHEMAS.seed.nullish(),
  stop: z
    .union(
      [
        SAMPLING_FIELD_SCHEMAS.stopString,
        z.array(SAMPLING_FIELD_SCHEMAS.stopString).max(SAMPLING_LIMITS.stop.maxCount),
      ],
      {
        error: `stop must be a string or an array of up to ${SAMPLING_LIMITS.stop.maxCount} strings of 1 to ${SAMPLING_LIMITS.stop.maxLength} characters`,
      },
    )
    .nullish(),
  n: z.literal(1, { error: unsupported('n other than 1', 'n = 1') }).nullish(),
  user: z.string().max(256).nullish(),
  logit_bias: z
    .record(z.string(), z.number())
    .refine((bias) => Object.keys(bias).length === 0, { error: unsupported('logit_bias', 'an empty map') })
    .nullish(),
  first_frame: FirstFrameExtensionSchema.nullish(),
};

/** `POST /v1/chat/completions` body. */
export const ChatCompletionBodySchema = z.object({
  ...commonFields,
  messages: z.array(ChatMessageSchema).min(1, { error: 'messages must hold at least one message' }),
  max_completion_tokens: SAMPLING_FIELD_SCHEMAS.maxTokens.nullish(),
  logprobs: z.literal(false, { error: unsupported('logprobs', 'false') }).nullish(),
  top_logprobs: z.literal(0, { error: unsupported('top_logprobs', '0') }).nullish(),
  tools: z
    .array(z.unknown())
    .max(0, { error: unsupported('tools', 'an empty list') })
    .nullish(),
  tool_choice: z.literal('none', { error: unsupported('tool_choice', '"none"') }).nullish(),
  response_format: z
    .object({ type: z.literal('text', { error: unsupported('response_format', '{"type": "text"}') }) })
    .nullish(),
});
export type ChatCompletionBody = z.infer<typeof ChatCompletionBodySchema>;

/** `POST /v1/completions` body: one string prompt (or an array holding exactly one). */
export const CompletionBodySchema = z.object({
  ...commonFields,
  prompt: z.union([wellFormedText(), z.array(wellFormedText()).length(1)], {
    error: 'prompt must be a string (token arrays and batches of prompts are not supported)',
  }),
  echo: z.literal(false, { error: unsupported('echo', 'false') }).nullish(),
  best_of: z.literal(1, { error: unsupported('best_of', '1') }).nullish(),
  logprobs: z.null({ error: unsupported('logprobs', 'null') }).optional(),
  suffix: z.null({ error: unsupported('suffix', 'null') }).optional(),
});
export type CompletionBody = z.infer<typeof CompletionBodySchema>;
