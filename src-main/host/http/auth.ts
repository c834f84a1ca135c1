import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A constant-time comparison of two strings (digests, so lengths leak nothing either). */
function isSameSecret(given: string, apiKey: string): boolean {
  return timingSafeEqual(digest(given), digest(apiKey));
}

/**
 * True when the `Authorization` header carries the key: `Bearer <apiKey>` (OpenAI clients,
 * scripts) or `Basic base64(<any user>:<apiKey>)` (what a browser sends after its own login
 * prompt, on every request of the page, the event stream included). Constant time in the key.
 */
export function isAuthorized(header: string | undefined, apiKey: string): boolean {
  const match = /^(Bearer|Basic)\s+(.+)$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  if (match[1]!.toLowerCase() === 'bearer') return isSameSecret(match[2]!, apiKey);
  const decoded = Buffer.from(match[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && isSameSecret(decoded.slice(colon + 1), apiKey);
}

/** The challenge a browser answers with its login prompt (any user name, the key as password). */
export const BASIC_CHALLENGE =
  'Basic realm="First Frame (user: any, password: the API key)", charset="UTF-8"';

const LOOPBACK_BIND = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

/** True when a bind address is reachable only from this machine. */
export function isLoopbackBind(bindHost: string): boolean {
  return LOOPBACK_BIND.test(bindHost);
}

/**
 * Why a host must not start, or null: bound beyond loopback with no key, unless the user
 * said `--no-key` explicitly (anyone on the network could then read every conversation).
 */
export function exposureProblem(bindHost: string, hasKey: boolean, isKeyWaived: boolean): string | null {
  if (isLoopbackBind(bindHost) || hasKey || isKeyWaived) return null;
  return (
    `refusing to listen on ${bindHost} without an API key: anyone who can reach this machine could use the model ` +
    'and read your conversations. Set FIRST_FRAME_API_KEY=<key> (browsers then ask for it; any user name), ' +
    'or pass --no-key to accept that risk.'
  );
}
