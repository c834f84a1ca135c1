import { EVENTS } from '../../src-main/service/contract/events';
import { METHODS } from '../../src-main/service/contract/methods';
import { failure } from '../../src-main/service/contract/result';
import { ServiceErrorSchema } from '../../src-main/service/contract/schemas';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { MethodName, MethodOutput } from '../../src-main/service/contract/methods';
import type { Result } from '../../src-main/service/contract/result';
import { plainIssueWords } from './plain-issues';

/**
 * Checks a raw answer against the contract: an `ok` value must match the method's output
 * schema and an error must be a ServiceError; anything else becomes an `internal` error.
 */
export function validateResult<M extends MethodName>(method: M, raw: unknown): Result<MethodOutput<M>> {
  if (typeof raw !== 'object' || raw === null || !('ok' in raw)) {
    return failure('internal', `${method}: the answer is not a Result`);
  }
  if (raw.ok === true && 'value' in raw) {
    const parsed = METHODS[method].output.safeParse(raw.value);
    if (parsed.success) return { ok: true, value: parsed.data as MethodOutput<M> };
    // The issues go to the console; the window says what it means for the user.
    console.warn(`[bridge] ${method} answered outside the contract`, parsed.error.issues);
    return failure(
      'internal',
      `${method}: the host answered in a form this window does not know (reload the window)`,
    );
  }
  const error = ServiceErrorSchema.safeParse('error' in raw ? raw.error : undefined);
  if (!error.success) return failure('internal', `${method}: malformed error`);
  return { ok: false, error: { ...error.data, message: plainIssueWords(error.data.message) } };
}

/** The events of a raw batch that match the contract; the others are dropped with a warning. */
export function validateEvents(raw: unknown): PushedEvent[] {
  if (!Array.isArray(raw)) {
    console.warn('[bridge] dropped an event batch that is not an array');
    return [];
  }
  const events: PushedEvent[] = [];
  for (const item of raw as { name?: unknown; payload?: unknown }[]) {
    const schema =
      typeof item?.name === 'string' && Object.hasOwn(EVENTS, item.name)
        ? EVENTS[item.name as PushedEvent['name']]
        : null;
    const parsed = schema?.safeParse(item.payload);
    if (parsed?.success) events.push({ name: item.name, payload: parsed.data } as PushedEvent);
    else console.warn(`[bridge] dropped an invalid event ${String(item?.name)}`);
  }
  return events;
}
