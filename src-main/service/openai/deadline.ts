import { MAX_DEADLINE_MS } from '../../runtime/settings/declaration';
import { openAiFailure } from './errors';
import type { ParsedBody } from './to-request';
import type { OpenAiFailure } from './types';

/** The header a client sets a per-request deadline with (ms after the request arrives). */
export const DEADLINE_HEADER = 'x-first-frame-deadline-ms';

/**
 * A request's deadline in ms from the header or `first_frame.deadline_ms` (the same meaning;
 * if both are sent they must agree), undefined when neither is (the server's default applies),
 * or a 400 naming the bad one.
 */
export function deadlineOf(
  parsed: ParsedBody,
  header: string | undefined,
): number | undefined | OpenAiFailure {
  const fromBody = parsed.body.first_frame?.deadline_ms ?? undefined;
  if (header === undefined) return fromBody;
  const fromHeader = Number(header.trim());
  if (!/^\d+$/.test(header.trim()) || fromHeader < 1 || fromHeader > MAX_DEADLINE_MS)
    return openAiFailure(
      400,
      `Invalid header '${DEADLINE_HEADER}': a whole number of milliseconds from 1 to ${MAX_DEADLINE_MS}, got "${header}".`,
      { param: DEADLINE_HEADER, code: 'invalid_value' },
    );
  if (fromBody !== undefined && fromBody !== fromHeader)
    return openAiFailure(
      400,
      `The deadline is set twice and differs: header '${DEADLINE_HEADER}' says ${fromHeader} ms, 'first_frame.deadline_ms' says ${fromBody} ms. Send one.`,
      { param: 'first_frame.deadline_ms', code: 'invalid_value' },
    );
  return fromHeader;
}
