// The window's security rules as pure functions: which URLs are the app, who may call over IPC,
// where navigation may go, which permissions a page gets. No Electron import, so every rule is
// unit-tested in plain Node; harden.ts applies them.

/** The privileged scheme the packaged renderer is served from (see app-protocol.ts). */
export const APP_SCHEME = 'app';
/** The one host of that scheme; `app://first-frame` is the packaged app's origin. */
export const APP_HOST = 'first-frame';
/** The packaged renderer's origin. */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The packaged renderer's entry document. */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** Longest external URL handed to the OS browser (characters). */
const MAX_EXTERNAL_URL_LENGTH = 2_048;

/** Permissions a page of our own origin may get; everything else is denied. */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/** What the IPC layer knows about the frame that sent a message (null frame: destroyed). */
export interface SenderFrameInfo {
  url: string;
  isTopFrame: boolean;
}

/** What to do with a navigation or a `window.open`: always stay put; maybe hand the URL to the OS. */
export type NavigationDecision = { kind: 'deny' } | { kind: 'open-external'; url: string };

/**
 * `scheme://host[:port]` of a URL, lower-cased, or null when it does not parse or carries
 * credentials. Computed by hand: Node's URL gives the origin "null" for non-web schemes like app:.
 */
export function originOf(rawUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '' || url.host === '') return null;
  return `${url.protocol}//${url.host}`.toLowerCase();
}

/** Whether a URL belongs to one of the app's own origins (the app scheme, or the dev server in dev). */
export function isAppUrl(rawUrl: string, appOrigins: readonly string[]): boolean {
  const origin = originOf(rawUrl);
  return origin !== null && appOrigins.some((allowed) => allowed.toLowerCase() === origin);
}

/** IPC is accepted only from the app's own top-level frame; subframes and other origins are refused. */
export function isTrustedSenderFrame(frame: SenderFrameInfo | null, appOrigins: readonly string[]): boolean {
  return frame !== null && frame.isTopFrame && isAppUrl(frame.url, appOrigins);
}

/**
 * Whether a URL may be handed to the OS browser: plain http(s) with a host, no credentials, of
 * sane length. Other schemes (file:, custom app handlers, javascript:) can launch programs.
 */
export function isSafeExternalUrl(rawUrl: string): boolean {
  if (rawUrl.length > MAX_EXTERNAL_URL_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return false;
  }
  const isWeb = url.protocol === 'https:' || url.protocol === 'http:';
  return isWeb && url.hostname !== '' && url.username === '' && url.password === '';
}

/**
 * The window never navigates away and never opens another window. A safe external web link
 * goes to the OS browser instead; anything else (including our own URLs) is simply refused.
 */
export function decideNavigation(rawUrl: string, appOrigins: readonly string[]): NavigationDecision {
  if (isAppUrl(rawUrl, appOrigins)) return { kind: 'deny' };
  return isSafeExternalUrl(rawUrl) ? { kind: 'open-external', url: new URL(rawUrl).href } : { kind: 'deny' };
}

/** Permissions are denied by default; only the allowlist, and only for our own origin. */
export function isPermissionAllowed(
  permission: string,
  requestingUrl: string,
  appOrigins: readonly string[],
): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl, appOrigins);
}
