import type { Session, WebContents } from 'electron';
import { withContentSecurityPolicy } from './csp';
import { decideNavigation, isAppUrl, isPermissionAllowed } from './security-rules';

// Applies the pure rules in security-rules.ts to Electron objects: every WebContents refuses
// navigation, new windows and <webview>; the session denies permissions by default and stamps
// the CSP header on the app's own responses.

/** What the hardening needs: our origins, how to open a vetted URL in the OS browser, a logger. */
export interface HardenOptions {
  appOrigins: readonly string[];
  openExternal(url: string): void;
  log(message: string): void;
}

/** Sends a refused navigation's URL to the OS browser when the rules allow it; logs the rest. */
function routeAway(url: string, options: HardenOptions, what: string): void {
  const decision = decideNavigation(url, options.appOrigins);
  if (decision.kind === 'open-external') options.openExternal(decision.url);
  else options.log(`${what} to ${url.slice(0, 200)} refused`);
}

/**
 * Locks one WebContents (call it from app 'web-contents-created', so no page escapes): no
 * navigation in any frame, window.open denied, redirects only within our origins, no webviews.
 */
export function hardenWebContents(contents: WebContents, options: HardenOptions): void {
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    routeAway(event.url, options, 'navigation');
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isAppUrl(event.url, options.appOrigins)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url, options.appOrigins)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    options.log('webview attach refused');
  });
  contents.setWindowOpenHandler(({ url }) => {
    routeAway(url, options, 'window.open');
    return { action: 'deny' };
  });
}

/** Session-wide rules: permissions and devices denied by default, our CSP on our own documents. */
export function hardenSession(session: Session, options: HardenOptions, contentSecurityPolicy: string): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl, options.appOrigins));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, options.appOrigins),
  );
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isAppUrl(details.url, options.appOrigins)) return callback({});
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders, contentSecurityPolicy) });
  });
}
