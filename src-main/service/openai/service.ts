import { randomUUID } from 'node:crypto';
import { findEntry, refusalOf } from '../../runtime/model/catalogue';
import { openAiFailure } from './errors';
import { deadlineOf } from './deadline';
import { Reply } from './reply';
import { RetryAfterEstimate } from './retry-after';
import type { ParsedBody } from './to-request';
import { parseBody, toGenerationRequest } from './to-request';
import type {
  FrameSink,
  OpenAiCall,
  OpenAiDeps,
  OpenAiEndpoint,
  OpenAiFailure,
  OpenAiModel,
  OpenAiService,
} from './types';

const ID_PREFIX: Record<OpenAiEndpoint, string> = { chat: 'chatcmpl-', text: 'cmpl-' };

/**
 * The OpenAI-compatible API without a transport: validates bodies, maps them to runtime
 * requests (which go through `runtime.submit` like any other, so their timelines reach the
 * dashboard and the store) and shapes every answer as OpenAI does, plus `timings`.
 */
export function createOpenAiService(deps: OpenAiDeps): OpenAiService {
  const createdS = Math.floor(deps.clock.wallNow() / 1000);
  const retryAfter = new RetryAfterEstimate();
  const listModels = (): OpenAiModel[] =>
    deps.runtime
      .models()
      .filter((m) => m.status === 'ok')
      .map((m) => ({
        id: m.modelId,
        object: 'model' as const,
        created: createdS,
        owned_by: m.isBundled ? 'first-frame' : 'user',
      }));
  return {
    listModels: () => ({ object: 'list', data: listModels() }),
    // The catalogue's own lookup: a bare name means its default variant, as in a request's `model`.
    retrieveModel: (modelId) => {
      const entry = findEntry(deps.runtime.models(), modelId);
      if (!entry)
        return openAiFailure(404, `The model '${modelId}' does not exist (GET /v1/models lists them).`, {
          code: 'model_not_found',
        });
      if (entry.status !== 'ok')
        return openAiFailure(404, `The model '${modelId}' cannot run: ${refusalOf(entry)}`, {
          code: 'model_not_found',
        });
      const model = listModels().find((m) => m.id === entry.modelId)!;
      return { ...model, id: modelId };
    },
    now: () => deps.clock.now(),
    failure: (status, message, type, code) => openAiFailure(status, message, { type, code: code ?? null }),
    start(endpoint, raw, out, arrivedAt, deadlineHeader) {
      const parsed = parseBody(endpoint, raw);
      if ('status' in parsed) return refuse(out, parsed);
      const refusal = runRefusal(deps, parsed);
      if (refusal) return refuse(out, refusal);
      const deadlineMs = deadlineOf(parsed, deadlineHeader);
      if (typeof deadlineMs === 'object') return refuse(out, deadlineMs);
      return submit(deps, parsed, out, { arrivedAt, deadlineMs }, retryAfter);
    },
  };
}

function refuse(out: FrameSink, failure: OpenAiFailure): null {
  out({ kind: 'json', status: failure.status, body: failure.body, headers: failure.headers });
  return null;
}

/** A `first_frame.run_id` must name a stored run: timelines reference runs in the store. */
function runRefusal(deps: OpenAiDeps, parsed: ParsedBody): OpenAiFailure | null {
  const runId = parsed.body.first_frame?.run_id;
  if (!runId || !deps.history?.isPersistent || deps.history.runs.get(runId)) return null;
  return openAiFailure(400, `Invalid 'first_frame.run_id': no stored run "${runId}".`, {
    param: 'first_frame.run_id',
    code: 'invalid_value',
  });
}

function submit(
  deps: OpenAiDeps,
  parsed: ParsedBody,
  out: FrameSink,
  at: { arrivedAt: number | undefined; deadlineMs: number | undefined },
  retryAfter: RetryAfterEstimate,
): OpenAiCall {
  const id = `${ID_PREFIX[parsed.endpoint]}${randomUUID().replaceAll('-', '')}`;
  const { body } = parsed;
  const reply = new Reply(
    {
      id,
      created: Math.floor(deps.clock.wallNow() / 1000),
      // Without `model` the request runs on the default model; the reply names the one that ran.
      model: body.model ?? deps.runtime.defaultModelId() ?? '',
      endpoint: parsed.endpoint,
      isStream: body.stream === true,
      isUsageIncluded: body.stream === true && body.stream_options?.include_usage === true,
    },
    out,
    {
      retryAfterS: () => retryAfter.secondsFor(deps.runtime.queueSummary()),
      onFinished: (outcome) => {
        const reason = outcome.timeline.finishReason;
        if (reason === 'stop' || reason === 'length') retryAfter.observe(outcome.timeline.e2eMs);
      },
    },
  );
  deps.runtime.submit(toGenerationRequest(parsed, id, at.arrivedAt, at.deadlineMs), reply);
  return { id, cancel: () => deps.runtime.cancel(id) };
}
