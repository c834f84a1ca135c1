import type { TimelineRecorder } from '../../telemetry/timeline';
import { TemplateError } from '../model';
import type { CatalogueModel, ModelCatalogue } from '../model';
import { DEFAULT_SAMPLING } from '../sampling';
import type { SamplingParams } from '../sampling';
import type { GenerationOutcome, GenerationRequest } from './request';

/** Request limits (DESIGN: bad input gets a clear error and loses nothing). */
export interface RequestLimits {
  maxPromptTokens: number;
  maxOutputTokens: number;
  defaultMaxTokens: number;
  maxQueue: number;
  defaultDeadlineMs: number | null;
}

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
 * sampling. Throws `RequestRejected` with a message that says what to fix.
 */
export function routeRequest(
  request: GenerationRequest,
  catalogue: ModelCatalogue,
  limits: RequestLimits,
): RoutedRequest {
  const modelId = request.modelId ?? catalogue.defaultModelId();
  if (!modelId)
    throw new RequestRejected('not_found', 'no model is available: the models folder is empty or broken');
  const model = catalogue.resolve(modelId);
  if (model instanceof Error) throw new RequestRejected('not_found', model.message);
  const promptIds = tokenizePrompt(request, model);
  if (promptIds.length > limits.maxPromptTokens)
    throw new RequestRejected(
      'invalid_input',
      `prompt is ${promptIds.length} tokens; the limit is ${limits.maxPromptTokens}`,
    );
  const room = model.folder.shape.maxPositions - promptIds.length;
  if (room < 1)
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
  return {
    model,
    promptIds,
    sampling: samplingOf(request),
    seed: seedOf(request),
    maxTokens: Math.min(maxTokens, room),
  };
}

function tokenizePrompt(request: GenerationRequest, model: CatalogueModel): number[] {
  const { tokenizer } = model.folder;
  const prompt = request.prompt;
  const isEmpty =
    prompt.kind === 'text'
      ? prompt.text.length === 0
      : prompt.messages.every((m) => m.content.trim().length === 0);
  if (isEmpty) throw new RequestRejected('invalid_input', 'prompt is empty');
  const text = prompt.kind === 'text' ? prompt.text : renderChat(model, prompt.messages);
  const ids = tokenizer.encode(text);
  if (ids.length === 0) throw new RequestRejected('invalid_input', 'prompt is empty after tokenization');
  return ids;
}

/** The chat template's text; a template that fails or runs past its bounds refuses the request. */
function renderChat(
  model: CatalogueModel,
  messages: Parameters<CatalogueModel['folder']['tokenizer']['renderChat']>[0],
): string {
  try {
    return model.folder.tokenizer.renderChat(messages);
  } catch (error) {
    if (error instanceof TemplateError)
      throw new RequestRejected('invalid_input', `chat template ${error.message}`);
    throw error;
  }
}

function samplingOf(request: GenerationRequest): SamplingParams {
  const temperature = numberIn('temperature', request.temperature, DEFAULT_SAMPLING.temperature, 0, 5);
  const topK = numberIn('topK', request.topK, DEFAULT_SAMPLING.topK, 0, 100_000);
  const topP = numberIn('topP', request.topP, DEFAULT_SAMPLING.topP, Number.MIN_VALUE, 1);
  if (!Number.isInteger(topK))
    throw new RequestRejected('invalid_input', `topK must be an integer, got ${topK}`);
  return { temperature, topK, topP };
}

function numberIn(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new RequestRejected(
      'invalid_input',
      `${name} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return value;
}

function seedOf(request: GenerationRequest): number {
  if (request.seed === undefined) return Math.floor(Math.random() * 2 ** 31);
  if (!Number.isInteger(request.seed) || request.seed < 0)
    throw new RequestRejected(
      'invalid_input',
      `seed must be a non-negative integer, got ${JSON.stringify(request.seed)}`,
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
  Object.assign(recorder.meta, {
    modelId: routed.model.modelId,
    modelRevision: routed.model.revisions.modelRevision,
    slotId,
    isColdSlot,
    numPromptTokens: routed.promptIds.length,
  });
}
