// @ts-check
// Reads a failed download's output and says in words why it failed, so the user gets one
// sentence ("github.com could not be reached") instead of a stack trace with ENOTFOUND.

/**
 * Why a fetch did not produce its file: `ok`, `offline` (the host could not be resolved or
 * reached), `timeout` (it ran out of time), `unavailable` (the server answered 404: no such
 * prebuilt), or `failed` (anything else; `detail` carries the tool's last words).
 * @typedef {'ok' | 'offline' | 'timeout' | 'unavailable' | 'failed'} FetchOutcomeKind
 * @typedef {{ kind: FetchOutcomeKind, detail: string }} FetchOutcome
 */

// node-gyp words it without the code ("related to network connectivity").
const OFFLINE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ECONNRESET|ETIMEDOUT)\b|related to network connectivity/;
const HOST_OF_ERROR =
  /(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\s+([\w.-]+\.[a-z]{2,})/i;
const HOST_OF_REQUEST = /\bGET https?:\/\/([\w.-]+)/g;
const NOT_FOUND = /\b(404|Not Found)\b/;

/**
 * The host a network error names ("getaddrinfo ENOTFOUND github.com" → github.com), else the
 * last host a request line names ("gyp http GET https://electronjs.org/…"), or null.
 * @param {string} output
 */
export function failedHost(output) {
  const named = HOST_OF_ERROR.exec(output)?.[1];
  if (named) return named;
  return [...output.matchAll(HOST_OF_REQUEST)].at(-1)?.[1] ?? null;
}

/**
 * Classifies a failed fetch from its captured output and whether it was stopped at its deadline.
 * @param {string} output
 * @param {boolean} isTimedOut
 * @returns {FetchOutcome}
 */
export function classifyFetchFailure(output, isTimedOut) {
  if (isTimedOut) return { kind: 'timeout', detail: 'no answer in time' };
  if (OFFLINE.test(output)) {
    const host = failedHost(output);
    return { kind: 'offline', detail: host ? `${host} could not be reached` : 'no network connection' };
  }
  if (NOT_FOUND.test(output)) return { kind: 'unavailable', detail: 'no such file on the server (404)' };
  return { kind: 'failed', detail: lastLine(output) };
}

/**
 * The last non-empty line of a tool's output (its usual "why"), shortened for one line.
 * @param {string} output
 */
export function lastLine(output) {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines.at(-1) ?? 'no output';
  return last.length > 160 ? `${last.slice(0, 157)}…` : last;
}
