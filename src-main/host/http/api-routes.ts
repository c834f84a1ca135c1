import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_LIMITS } from '../../limits';
import { METHODS } from '../../service/contract/methods';
import type { MethodName } from '../../service/contract/methods';
import type { ServiceApi } from '../../service/contract/service-api';
import type { EventStreamOptions } from './event-stream';
import { DEFAULT_EVENT_STREAM_OPTIONS, openEventStream } from './event-stream';
import { exportFormatOf, serveExport } from './export-download';
import type { ExportOpener } from './export-download';
import { readJson } from './read-body';
import { decodePathPart } from './request-target';
import { failure, sendResult } from './respond';
import type { RouteModule } from './route-module';
import { serveTraceUpload } from './trace-upload';
import type { TraceImporter } from './trace-upload';
import type { Log } from '../../telemetry/log/log';

/** Body limits (limits.ts): 1 MiB for any call, more for the one that carries a whole trace file. */
export const DEFAULT_MAX_BODY_BYTES = HTTP_LIMITS.maxBodyBytes;
const BODY_LIMITS: Partial<Record<MethodName, number>> = {
  'traces.import': HTTP_LIMITS.maxTraceCallBodyBytes,
};

/** How the API module is built: the service, and event-stream pacing for tests. */
export interface ApiRouteOptions {
  service: ServiceApi;
  events?: EventStreamOptions;
  /** Streams `/api/export.<format>` from the store (flat memory); absent: CSV only, via the service. */
  openExport?: ExportOpener;
  /** Serves the streamed `POST /api/traces/import` upload; absent: only the `traces.import` call. */
  importTrace?: TraceImporter;
  /** Hears a download or an event stream that had to be cut off midway (default: stderr). */
  log?: Log;
}

/**
 * `/api/*`: `POST /api/call/<method>` (JSON in, Result out), `GET /api/events` (server-sent
 * event batches), `GET /api/export.<format>` downloads and the streamed `POST /api/traces/import`. Every
 * service method is reachable by name and
 * nothing else: the names come from the contract's METHODS.
 */
export function createApiRoutes(options: ApiRouteOptions): RouteModule {
  const closers = new Set<() => void>();
  return {
    prefix: '/api/',
    async handle(req, res, url) {
      const path = url.pathname;
      if (path.startsWith('/api/call/'))
        return callMethod(req, res, options, path.slice('/api/call/'.length));
      if (path === '/api/traces/import' && options.importTrace)
        return serveTraceUpload(req, res, url, options.importTrace);
      if (req.method !== 'GET')
        return sendResult(res, failure('invalid_input', `${req.method} is not allowed on ${path}`), 405);
      if (path === '/api/events') {
        const close = openEventStream(
          req,
          res,
          options.service,
          options.events ?? DEFAULT_EVENT_STREAM_OPTIONS,
          options.log,
        );
        closers.add(close);
        res.once('close', () => closers.delete(close));
        return;
      }
      const format = exportFormatOf(path);
      if (format !== null) return serveExport(res, options, url, format);
      sendResult(res, failure('not_found', `no API route ${path}`));
    },
    close() {
      for (const close of closers) close();
      closers.clear();
    },
  };
}

async function callMethod(
  req: IncomingMessage,
  res: ServerResponse,
  options: ApiRouteOptions,
  rawName: string,
) {
  const name = decodePathPart(rawName);
  if (name === null)
    return sendResult(res, failure('invalid_input', 'the method name has invalid percent-encoding'));
  if (!Object.hasOwn(METHODS, name)) return sendResult(res, failure('not_found', `unknown method "${name}"`));
  if (req.method !== 'POST') return sendResult(res, failure('invalid_input', 'call methods with POST'), 405);
  const contentType = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(contentType)) {
    return sendResult(res, failure('invalid_input', 'send the input as Content-Type: application/json'), 415);
  }
  const method = name as MethodName;
  const body = await readJson(req, BODY_LIMITS[method] ?? DEFAULT_MAX_BODY_BYTES, {});
  if (body.kind === 'too-large') {
    res.setHeader('Connection', 'close');
    return sendResult(
      res,
      failure('invalid_input', `request body is larger than ${body.maxBytes} bytes`),
      413,
    );
  }
  if (body.kind === 'too-complex')
    return sendResult(
      res,
      failure('invalid_input', `the body ${body.problem}; it was refused before parsing`),
    );
  if (body.kind === 'not-json')
    return sendResult(res, failure('invalid_input', `the body is not valid JSON: ${body.message}`));
  sendResult(res, await options.service.call(method, body.value));
}
