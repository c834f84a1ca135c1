import { readFile } from 'node:fs/promises';
import type { Protocol } from 'electron';
import { appFileHeaders, resolveAppFile } from './app-files';
import { APP_SCHEME } from './security-rules';

// Serves the built renderer (out/renderer) over app://first-frame instead of file://: a real
// origin to check IPC senders against, response headers for the CSP (file:// has none), and
// no file-system reach beyond that one folder.

/**
 * Declares app:// a standard, secure scheme with fetch support. Must run before the app's
 * `ready` event (Electron's rule for privileged schemes).
 */
export function registerAppScheme(protocol: Protocol): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

/** Answers app:// requests from `rendererDir` (GET/HEAD only; anything outside the folder is 404). */
export function serveAppProtocol(
  protocol: Protocol,
  rendererDir: string,
  contentSecurityPolicy: string,
): void {
  protocol.handle(APP_SCHEME, async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405 });
    const file = resolveAppFile(rendererDir, request.url);
    if (file === null) return new Response('not found', { status: 404 });
    try {
      const body = request.method === 'HEAD' ? null : await readFile(file);
      return new Response(body, { status: 200, headers: appFileHeaders(file, contentSecurityPolicy) });
    } catch {
      return new Response('not found', { status: 404 });
    }
  });
}
