import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One group of routes under a path prefix (`/api/`, later `/v1/`). The host picks the first
 * module whose prefix matches; the module answers every request under it, 404s included.
 */
export interface RouteModule {
  /** Path prefix, with a trailing slash (`/api/`); `/` is the static files' catch-all. */
  readonly prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** Answers a request that lacks the host's API key in this module's own error format. */
  sendUnauthorized?(res: ServerResponse): void;
  /** Releases what the module holds open (event streams, timers) when the host closes. */
  close?(): void;
}

/** The first module whose prefix matches the path, longest prefix first. */
export function pickRoute(routes: readonly RouteModule[], pathname: string): RouteModule | null {
  let best: RouteModule | null = null;
  for (const route of routes) {
    const isMatch = pathname.startsWith(route.prefix) || pathname === route.prefix.replace(/\/$/, '');
    if (isMatch && (!best || route.prefix.length > best.prefix.length)) best = route;
  }
  return best;
}
