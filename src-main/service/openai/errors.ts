import type { ZodError } from 'zod';
import type { GenerationOutcome } from '../../runtime/scheduler/request';
import { SAMPLING_WIRE_NAMES } from '../../runtime/sampling/limits';
import type { WireSamplingKey } from '../../runtime/sampling/limits';
import type { OpenAiFailure } from './types';

/** OpenAI's error `type` for a status: clients branch on the status, people read the type. */
function typeOf(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** An error answer in OpenAI's exact shape `{error: {message, type, param, code}}`. */
export function openAiFailure(
  status: number,
  message: string,
  details: {
    type?: string;
    param?: string | null;
    code?: string | null;
    headers?: Record<string, string>;
  } = {},
): OpenAiFailure {
  return {
    status,
    body: {
      error: {
        message,
        type: details.type ?? typeOf(status),
        param: details.param ?? null,
        code: details.code ?? null,
      },
    },
    headers: details.headers ?? {},
  };
}

/** `messages.0.content` → `messages[0].content`, the way OpenAI names a parameter. */
export function paramOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (name, key) =>
      typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key),
    '',
  );
}

/** A 400 naming the first invalid field, as OpenAI words it ("Missing required parameter: 'model'."). */
export function fromZod(error: ZodError): OpenAiFailure {
  const issue = error.issues[0];
  if (!issue) return openAiFailure(400, 'The request body is invalid.');
  const param = paramOf(issue.path);
  const isMissing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
  const more =
    error.issues.length > 1
      ? ` (and ${error.issues.length - 1} more problem${error.issues.length > 2 ? 's' : ''})`
      : '';
  if (!param) return openAiFailure(400, `The request body is invalid: ${issue.message}${more}`);
  const message = isMissing
    ? `Missing required parameter: '${param}'.`
    : `Invalid '${param}': ${issue.message}.${more}`;
  return openAiFailure(400, message, {
    param,
    code: isMissing ? 'missing_required_parameter' : 'invalid_value',
  });
}

/** Which parameter a runtime refusal is about, read from its message (best effort). */
function paramOfRefusal(message: string, endpointParam: string): string | null {
  if (/^unknown model|models folder/.test(message)) return 'model';
  if (/^prompt/.test(message)) return endpointParam;
  if (/^maxTokens/.test(message)) return 'max_tokens';
  const name = /^(\w+)/.exec(message)?.[1] ?? '';
  return Object.hasOwn(SAMPLING_WIRE_NAMES, name) ? SAMPLING_WIRE_NAMES[name as WireSamplingKey] : null;
}

/**
 * The HTTP answer for a request the runtime refused or failed: full queue → 429 with
 * Retry-After, bad input → 400, unknown model → 404, shutting down → 503, a bug → 500.
 */
export function fromOutcome(
  outcome: GenerationOutcome,
  endpointParam: string,
  retryAfterS: number,
): OpenAiFailure {
  const message = outcome.errorMessage ?? `the request ended: ${outcome.timeline.finishReason}`;
  switch (outcome.errorCode) {
    case 'queue_full':
      return openAiFailure(429, message, {
        code: 'queue_full',
        headers: { 'Retry-After': String(retryAfterS) },
      });
    case 'invalid_input':
      return openAiFailure(400, message, {
        param: paramOfRefusal(message, endpointParam),
        code: 'invalid_value',
      });
    case 'not_found':
      return openAiFailure(404, message, { param: 'model', code: 'model_not_found' });
    case 'unavailable':
      return openAiFailure(503, message, { code: 'unavailable' });
    default:
      if (outcome.timeline.finishReason === 'cancelled')
        return openAiFailure(503, `the request was cancelled: ${message}`, { code: 'cancelled' });
      return openAiFailure(500, message, { code: 'internal_error' });
  }
}
