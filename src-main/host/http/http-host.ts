import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ServiceApi } from '../../service/contract';
import { createApiRoutes } from './api-routes';
import type { ExportOpener } from './export-download';
import type { EventStreamOptions } from './event-stream';
import type { HostPolicy } from './host-guard';
import { checkHeaders, hostPolicy, isWildcardHost } from './host-guard';
import { sendText } from './respond';
import type { RouteModule } from './route-module';
import { pickRoute } from './route-module';
import { setSecurityHeaders } from './security-headers';
import { createStaticFiles } from './static-files';

/** How to start the headless host. */
export interface HttpHostOptions {
  service: ServiceApi;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Bind address; 127.0.0.1 unless the user explicitly asks for another. */
  host?: string;
  /** More names the Host/Origin check accepts (besides localhost, 127.0.0.1, [::1]). */
  extraHostNames?: readonly string[];
  /** More route modules, e.g. the OpenAI-compatible `/v1/` routes. */
  routes?: readonly RouteModule[];
  events?: EventStreamOptions;
  /** Streams `/api/export.<format>` downloads straight from the store (flat memory); absent: CSV only, via the service. */
  openExport?: ExportOpener;
}

/** A running host: where it listens, and how to stop it. */
export interface HttpHost {
  url: string;
  host: string;
  port: number;
  isPublic: boolean;
  close(): Promise<void>;
}

/**
 * Starts the headless host: the renderer's files, `/api/*` over the service, and any extra
 * route modules, all behind the Host/Origin guard and the security headers.
 */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const bindHost = options.host ?? '127.0.0.1';
  const routes: RouteModule[] = [
    createApiRoutes({ service: options.service, events: options.events, openExport: options.openExport }),
    ...(options.routes ?? []),
    createStaticFiles(options.rendererDir),
  ];
  let policy: HostPolicy | null = null;
  const server = createServer((req, res) => void handle(req, res, routes, policy));
  const port = await listen(server, options.port, bindHost);
  policy = hostPolicy(bindHost, port, options.extraHostNames);
  const urlHost = isWildcardHost(bindHost)
    ? '127.0.0.1'
    : bindHost.includes(':')
      ? `[${bindHost}]`
      : bindHost;
  return {
    url: `http://${urlHost}:${port}/`,
    host: bindHost,
    port,
    isPublic: isWildcardHost(bindHost),
    close: () => closeServer(server, routes),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  routes: RouteModule[],
  policy: HostPolicy | null,
) {
  setSecurityHeaders(res);
  if (!policy) return sendText(res, 503, 'Starting up');
  const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
  const verdict = checkHeaders(policy, req.headers.host, origin);
  if (!verdict.isAllowed) return sendText(res, 403, verdict.message);
  const url = new URL(req.url ?? '/', 'http://local');
  const route = pickRoute(routes, url.pathname);
  try {
    if (route) await route.handle(req, res, url);
    else sendText(res, 404, 'Not found');
  } catch (error) {
    console.error(`[http] ${req.method} ${url.pathname} failed:`, error);
    if (!res.headersSent) sendText(res, 500, 'Internal error (see the host console)');
    else res.destroy();
  }
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Ends event streams first (they never end on their own), then stops the server. */
function closeServer(server: Server, routes: RouteModule[]): Promise<void> {
  for (const route of routes) route.close?.();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
