import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { HTTP_LIMITS } from '../../limits';
import { printError } from '../../printable';
import type { ServiceApi } from '../../service/contract/service-api';
import type { Log } from '../../telemetry/log/log';
import { createApiRoutes } from './api-routes';
import type { ExportOpener } from './export-download';
import { BASIC_CHALLENGE, exposureProblem, isAuthorized, isLoopbackBind } from './auth';
import type { EventStreamOptions } from './event-stream';
import type { HostPolicy } from './host-guard';
import type { TraceImporter } from './trace-upload';
import { checkHeaders, hostPolicy, isWildcardHost } from './host-guard';
import { parseRequestTarget } from './request-target';
import { sendJson, sendText } from './respond';
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
  /** Serves the streamed trace upload `POST /api/traces/import` (the core's importTrace). */
  importTrace?: TraceImporter;
  /**
   * When set, every route (the page, `/api`, its event stream, `/v1`) needs the key: `Bearer
   * <key>`, or HTTP Basic with the key as password (browsers prompt for it once).
   */
  apiKey?: string | null;
  /** Bind beyond loopback with no key anyway (`--no-key`); otherwise starting refuses. */
  isKeyWaived?: boolean;
  /** Where host problems go (the core's log); default stderr. */
  log?: Log;
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
  const apiKey = options.apiKey || null;
  const exposure = exposureProblem(bindHost, apiKey !== null, options.isKeyWaived ?? false);
  if (exposure) throw new Error(exposure);
  const routes: RouteModule[] = [
    createApiRoutes({
      service: options.service,
      events: options.events,
      openExport: options.openExport,
      importTrace: options.importTrace,
      log: options.log,
    }),
    ...(options.routes ?? []),
    createStaticFiles(options.rendererDir),
  ];
  let policy: HostPolicy | null = null;
  const server = createServer(
    {
      headersTimeout: HTTP_LIMITS.headersTimeoutMs,
      requestTimeout: HTTP_LIMITS.requestTimeoutMs,
      keepAliveTimeout: HTTP_LIMITS.keepAliveTimeoutMs,
      maxHeaderSize: HTTP_LIMITS.maxHeaderBytes,
    },
    (req, res) => void handle(req, res, routes, policy, apiKey),
  );
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
    isPublic: !isLoopbackBind(bindHost),
    close: () => closeServer(server, routes),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  routes: RouteModule[],
  policy: HostPolicy | null,
  apiKey: string | null,
) {
  const method = req.method ?? '?';
  let path = '(unparsed)';
  try {
    setSecurityHeaders(res);
    if (!policy) return sendText(res, 503, 'Starting up');
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const verdict = checkHeaders(policy, req.headers.host, origin);
    if (!verdict.isAllowed) return sendText(res, 403, verdict.message);
    const target = parseRequestTarget(req.url);
    if (!target.ok) return sendText(res, 400, target.message);
    path = target.url.pathname;
    const route = pickRoute(routes, path);
    if (apiKey !== null && !isAuthorized(req.headers.authorization, apiKey))
      return route?.sendUnauthorized ? route.sendUnauthorized(res) : sendUnauthorized(res, path);
    if (route) await route.handle(req, res, target.url);
    else sendText(res, 404, 'Not found');
  } catch (error) {
    printError(
      `[http] ${method} ${path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    if (!res.headersSent) sendText(res, 500, 'Internal error (see the host console)');
    else res.destroy();
  }
}

/** 401 with a Basic challenge, so a browser asks for the key once and sends it on every request. */
function sendUnauthorized(res: ServerResponse, path: string): void {
  res.setHeader('WWW-Authenticate', BASIC_CHALLENGE);
  const message =
    'This server requires its API key: send Authorization: Bearer <key>, or sign in with any user name and the key as password.';
  if (path.startsWith('/api/'))
    return sendJson(res, 401, { ok: false, error: { code: 'forbidden', message } });
  sendText(res, 401, message);
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
