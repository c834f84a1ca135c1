// The renderer's Content-Security-Policy, built from `default-src 'none'` up. Sent as a header by
// app-protocol.ts (packaged) and by the session's onHeadersReceived (dev server). The renderer's
// index.html carries the same policy as a meta tag; a browser enforces both, so this header must
// not be looser than it, and the meta cannot say `frame-ancestors`, which only a header can.

/** The policy as directive → sources; `'self'` is the packaged app:// origin or the dev server. */
function directives(devServerOrigin: string | null): [string, string[]][] {
  const isDev = devServerOrigin !== null;
  // Dev only: Vite's React refresh preamble is an inline script, its CSS arrives as <style>
  // tags, and hot reload talks over a WebSocket to the dev server.
  const devInline = isDev ? ["'unsafe-inline'"] : [];
  const devSocket = isDev ? [devServerOrigin.replace(/^http/, 'ws')] : [];
  return [
    ['default-src', ["'none'"]],
    ['script-src', ["'self'", ...devInline]],
    ['style-src', ["'self'", ...devInline]],
    ['connect-src', ["'self'", ...devSocket]],
    ['img-src', ["'self'", 'data:']],
    ['font-src', ["'self'"]],
    ['object-src', ["'none'"]],
    ['base-uri', ["'none'"]],
    ['form-action', ["'none'"]],
    ['frame-ancestors', ["'none'"]],
  ];
}

/** The CSP header value: strict for the packaged app; `devServerOrigin` adds what Vite dev needs. */
export function buildContentSecurityPolicy(devServerOrigin: string | null): string {
  return directives(devServerOrigin)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** Response headers with any CSP the server sent replaced by ours (header names are case-insensitive). */
export function withContentSecurityPolicy(
  headers: Record<string, string[]> | undefined,
  policy: string,
): Record<string, string[]> {
  const kept = Object.entries(headers ?? {}).filter(
    ([name]) => name.toLowerCase() !== 'content-security-policy',
  );
  return { ...Object.fromEntries(kept), 'Content-Security-Policy': [policy] };
}
