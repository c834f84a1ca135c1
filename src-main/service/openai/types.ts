import type { Runtime } from '../../runtime/runtime';
import type { RunQueries } from '../../history/queries/runs';
import type { Clock } from '../../telemetry/clock';

/** Which OpenAI endpoint a body is for: chat completions or (legacy) text completions. */
export type OpenAiEndpoint = 'chat' | 'text';

/**
 * What a transport must write, in order. `event` frames are server-sent events and must be
 * written before the sink returns (the first one's return ends server TTFT); `json` is a
 * whole response, ended (a non-streamed answer, or an error before any event); `end` closes
 * a stream (`data: [DONE]`). A call yields one `json`, or events then `end`.
 */
export type Frame =
  | { kind: 'json'; status: number; body: unknown; headers: Record<string, string> }
  | { kind: 'event'; data: unknown }
  | { kind: 'end' };

/** Receives a call's frames; called synchronously from the runtime's sink. */
export type FrameSink = (frame: Frame) => void;

/** A started call: its id (also the runtime request id) and how to cancel it. */
export interface OpenAiCall {
  id: string;
  /** Cancels the request (the client went away); false when it already finished. */
  cancel(): boolean;
}

/** OpenAI's error body, exactly: `{error: {message, type, param, code}}`. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error answer: HTTP status, body and extra headers (Retry-After on 429). */
export interface OpenAiFailure {
  status: number;
  body: OpenAiErrorBody;
  headers: Record<string, string>;
}

/** One entry of `GET /v1/models`. */
export interface OpenAiModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/**
 * What the OpenAI service needs: a runtime to submit to, the process clock, and optionally
 * the store's runs (then `first_frame.run_id` must name a stored run). CoreDeps satisfies it.
 */
export interface OpenAiDeps {
  runtime: Pick<Runtime, 'submit' | 'cancel' | 'models' | 'queueSummary' | 'defaultModelId'>;
  clock: Clock;
  history?: { isPersistent: boolean; runs: Pick<RunQueries, 'get'> };
}

/** Transport-free OpenAI semantics: validation, mapping to the runtime, response shapes. */
export interface OpenAiService {
  /** `GET /v1/models`: every model that loads. */
  listModels(): { object: 'list'; data: OpenAiModel[] };
  /** `GET /v1/models/{id}`, or a 404 model_not_found: unknown, or listed with why it cannot run. */
  retrieveModel(modelId: string): OpenAiModel | OpenAiFailure;
  /** The process clock's now (ms), for transports that stamp arrival before reading the body. */
  now(): number;
  /**
   * Validates `body` (and the deadline header's value, if the transport saw one) and submits
   * it. Frames go to `out`; an invalid body yields one `json` 400 frame at once and returns null.
   */
  start(
    endpoint: OpenAiEndpoint,
    body: unknown,
    out: FrameSink,
    arrivedAt?: number,
    deadlineHeader?: string,
  ): OpenAiCall | null;
  /** An error body in OpenAI's shape, for errors the transport finds (auth, JSON, size). */
  failure(status: number, message: string, type?: string, code?: string | null): OpenAiFailure;
}
