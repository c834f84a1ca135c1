import type { TimelineRecorder } from '../../telemetry/timeline/recorder';
import { rawPrompt } from '../tokenize/chat-literals';
import { TemplateError } from '../tokenize/chat-template';
import type { CatalogueModel, ModelCatalogue } from '../model/catalogue';
import type { PromptText } from '../tokenize/chat-literals';
import type { ChatTurn } from '../tokenize/tokenizer';
import { encodePromptIds, renderChatPrompt } from '../tokenize/prompt-threads';
import type { OffThreadPrompts } from '../tokenize/prompt-threads';
import { SAMPLING_LIMITS } from '../sampling/limits';
import { DEFAULT_SAMPLING } from '../sampling/sampler';
import type { SamplingParams } from '../sampling/sampler';
import { maxPromptChars } from '../../limits';
import type { GenerationOutcome, GenerationRequest } from './request';
import type { RuntimeSettings } from '../settings/schema';

/**
 * The settings a request is checked against (DESIGN: bad input gets a clear error and loses
 * nothing). The runtime passes its live options, so a changed limit applies to the next request.
 */
export type RequestLimits = Readonly<
  Pick<
    RuntimeSettings,
    | 'maxPromptTokens'
    | 'maxOutputTokens'
    | 'defaultMaxTokens'
    | 'maxQueue'
    | 'defaultDeadlineMs'
    | 'defaultModel'
  >
>;

/** A request the runtime refuses, with the code a client can act on. */
export class RequestRejected extends Error {
  constructor(
    readonly code: NonNullable<GenerationOutcome['errorCode']>,
    message: string,
  ) {
    super(message);
    this.name = 'RequestRejected';
  }
}

/** Everything routing resolved: the model, prompt ids and validated generation settings. */
export interface RoutedRequest {
  model: CatalogueModel;
  promptIds: number[];
  sampling: SamplingParams;
  seed: number;
  maxTokens: number;
}

/**
 * Resolves a request's requirements (the `route` part): model, prompt tokens, limits and
 * sampling. Throws `RequestRejected` with a message that says what to fix. A prompt is bounded
 * by characters before any tokenizer sees it; a chat whose template is over the serving thread's
 * budget is rendered, and a long prompt tokenized, in `threads` off the serving thread, and then
 * the result is a promise (that rejects the same way).
 */
export function routeRequest(
  request: GenerationRequest,
  catalogue: ModelCatalogue,
  limits: RequestLimits,
  threads: OffThreadPrompts | null = null,
): RoutedRequest | Promise<RoutedRequest> {
  const model = modelOfRequest(request, catalogue, limits);
  if (model instanceof RequestRejected) throw model;
  const settings = { sampling: samplingOf(request), seed: seedOf(request) };
  const withIds = (ids: number[]) => withPrompt(request, model, limits, settings, ids);
  // What the cache already holds costs nothing to encode: a long history with a short new turn
  // stays on this thread, so `route` does not grow with the history.
  const encoded = (prompt: PromptText) => {
    const ids = encodePromptIds(model, prompt, threads);
    return ids instanceof Promise ? ids.then(withIds) : withIds(ids);
  };
  const prompt = promptText(request, model, limits, threads);
  return prompt instanceof Promise ? prompt.then(encoded) : encoded(prompt);
}

/**
 * The catalogue model a request names (its own model, else the settings' default, else the
 * catalogue's), or why there is none; routing and the arrival wake both ask it.
 */
export function modelOfRequest(
  request: GenerationRequest,
  catalogue: ModelCatalogue,
  limits: Pick<RequestLimits, 'defaultModel'>,
): CatalogueModel | RequestRejected {
  const modelId = request.modelId ?? limits.defaultModel ?? catalogue.defaultModelId();
  if (!modelId)
    return new RequestRejected('not_found', 'no model is available: the models folder is empty or broken');
  const model = catalogue.resolve(modelId);
  return model instanceof Error ? new RequestRejected('not_found', model.message) : model;
}

/** The rest of routing once the prompt's ids are known: the token limits and the output budget. */
function withPrompt(
  request: GenerationRequest,
  model: CatalogueModel,
  limits: RequestLimits,
  settings: Pick<RoutedRequest, 'sampling' | 'seed'>,
  promptIds: number[],
): RoutedRequest {
  if (promptIds.length === 0)
    throw new RequestRejected('invalid_input', 'prompt is empty after tokenization');
  if (promptIds.length > limits.maxPromptTokens)
    throw new RequestRejected(
      'invalid_input',
      `prompt is ${promptIds.length} tokens; the limit is ${limits.maxPromptTokens}`,
    );
  const numPositionsLeft = model.folder.shape.maxPositions - promptIds.length;
  if (numPositionsLeft < 1)
    throw new RequestRejected(
      'invalid_input',
      `prompt is ${promptIds.length} tokens; the model holds ${model.folder.shape.maxPositions}`,
    );
  const maxTokens = request.maxTokens ?? limits.defaultMaxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > limits.maxOutputTokens)
    throw new RequestRejected(
      'invalid_input',
      `maxTokens must be an integer from 1 to ${limits.maxOutputTokens}, got ${String(maxTokens)}`,
    );
  return { model, promptIds, ...settings, maxTokens: Math.min(maxTokens, numPositionsLeft) };
}

/**
 * The prompt as the tokenizer will see it: raw text (special-token text in it recognised, as
 * llama.cpp's server does), or the messages through the chat template (their text kept as text).
 * Refused unread when it has more characters than the token limit could ever hold
 * (limits.ts: no token stands for more than PROMPT_LIMITS.maxCharsPerToken characters).
 */
function promptText(
  request: GenerationRequest,
  model: CatalogueModel,
  limits: RequestLimits,
  threads: OffThreadPrompts | null,
): PromptText | Promise<PromptText> {
  const prompt = request.prompt;
  const maxChars = maxPromptChars(limits.maxPromptTokens);
  const numChars =
    prompt.kind === 'text'
      ? prompt.text.length
      : prompt.messages.reduce((sum, m) => sum + m.content.length, 0);
  const isEmpty =
    prompt.kind === 'text' ? numChars === 0 : prompt.messages.every((m) => m.content.trim().length === 0);
  if (isEmpty) throw new RequestRejected('invalid_input', 'prompt is empty');
  if (numChars > maxChars) throw tooManyChars('prompt', numChars, maxChars, limits);
  if (prompt.kind === 'text') return rawPrompt(prompt.text);
  // Rendering costs per message (~10 µs each on this thread): a chat with more messages than
  // tokens can fit is refused before the template runs (a template gives each one a token at least).
  const maxMessages = Math.min(limits.maxPromptTokens, model.folder.shape.maxPositions);
  if (prompt.messages.length > maxMessages)
    throw new RequestRejected(
      'invalid_input',
      `the chat has ${prompt.messages.length.toLocaleString('en-US')} messages; at most ${maxMessages.toLocaleString('en-US')} can fit in ${maxMessages} tokens (each message takes at least one), so it was refused without rendering`,
    );
  const checked = (rendered: PromptText) => {
    if (rendered.text.length > maxChars)
      throw tooManyChars("the chat template's output", rendered.text.length, maxChars, limits);
    return rendered;
  };
  const rendered = renderChat(model, prompt.messages, threads);
  return rendered instanceof Promise ? rendered.then(checked) : checked(rendered);
}

function tooManyChars(
  what: string,
  numChars: number,
  maxChars: number,
  limits: RequestLimits,
): RequestRejected {
  return new RequestRejected(
    'invalid_input',
    `${what} is ${numChars.toLocaleString('en-US')} characters; at most ${maxChars.toLocaleString('en-US')} can fit in the ${limits.maxPromptTokens}-token limit, so it was refused without tokenizing`,
  );
}

/**
 * The chat template's text (off the serving thread when its template is slow: see
 * renderChatPrompt); a template that fails or runs past its bounds refuses the request.
 */
function renderChat(
  model: CatalogueModel,
  messages: readonly ChatTurn[],
  threads: OffThreadPrompts | null,
): PromptText | Promise<PromptText> {
  try {
    const rendered = renderChatPrompt(model, messages, threads);
    return rendered instanceof Promise ? rendered.catch(templateRefusal) : rendered;
  } catch (error) {
    return templateRefusal(error);
  }
}

function templateRefusal(error: unknown): never {
  if (error instanceof TemplateError)
    throw new RequestRejected('invalid_input', `chat template ${error.message}`);
  throw error;
}

function samplingOf(request: GenerationRequest): SamplingParams {
  const { temperature, topK, topP, minP, repeatPenalty, presencePenalty, frequencyPenalty } = SAMPLING_LIMITS;
  const params = {
    temperature: numberIn('temperature', request.temperature, DEFAULT_SAMPLING.temperature, temperature),
    topK: numberIn('topK', request.topK, DEFAULT_SAMPLING.topK, topK),
    topP: numberIn('topP', request.topP, DEFAULT_SAMPLING.topP, {
      min: Number.MIN_VALUE,
      max: topP.max,
    }),
    minP: numberIn('minP', request.minP, DEFAULT_SAMPLING.minP, minP),
    repeatPenalty: numberIn(
      'repeatPenalty',
      request.repeatPenalty,
      DEFAULT_SAMPLING.repeatPenalty,
      repeatPenalty,
    ),
    presencePenalty: numberIn(
      'presencePenalty',
      request.presencePenalty,
      DEFAULT_SAMPLING.presencePenalty,
      presencePenalty,
    ),
    frequencyPenalty: numberIn(
      'frequencyPenalty',
      request.frequencyPenalty,
      DEFAULT_SAMPLING.frequencyPenalty,
      frequencyPenalty,
    ),
  };
  if (!Number.isInteger(params.topK))
    throw new RequestRejected('invalid_input', `topK must be an integer, got ${params.topK}`);
  checkStops(request.stop);
  return params;
}

function checkStops(stops: readonly string[] | undefined): void {
  const { maxCount, maxLength } = SAMPLING_LIMITS.stop;
  if (stops === undefined) return;
  if (stops.length > maxCount || stops.some((s) => s.length === 0 || s.length > maxLength))
    throw new RequestRejected(
      'invalid_input',
      `stop must hold at most ${maxCount} strings of 1 to ${maxLength} characters`,
    );
}

function numberIn(
  name: string,
  value: unknown,
  fallback: number,
  { min, max }: { min: number; max: number },
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new RequestRejected(
      'invalid_input',
      `${name} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return value;
}

function seedOf(request: GenerationRequest): number {
  if (request.seed === undefined) return Math.floor(Math.random() * (SAMPLING_LIMITS.seed.max + 1));
  const { min, max } = SAMPLING_LIMITS.seed;
  if (!Number.isInteger(request.seed) || request.seed < min || request.seed > max)
    throw new RequestRejected(
      'invalid_input',
      `seed must be an integer from ${min} to ${max}, got ${JSON.stringify(request.seed)}`,
    );
  return request.seed;
}

/** Fills the recorder's meta with what routing learned. */
export function describeRoute(
  recorder: TimelineRecorder,
  routed: RoutedRequest,
  slotId: string,
  isColdSlot: boolean,
): void {
  recorder.note({
    modelId: routed.model.modelId,
    modelRevision: routed.model.revisions.modelRevision,
    slotId,
    isColdSlot,
    numPromptTokens: routed.promptIds.length,
  });
}

/** Any routing failure as a refusal the client can read (an unexpected error is `internal`). */
export function asRejected(error: unknown): RequestRejected {
  return error instanceof RequestRejected
    ? error
    : new RequestRejected('internal', error instanceof Error ? error.message : String(error));
}
