import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEADLINE_HEADER } from '../../service/openai/deadline';
import type { OpenAiEndpoint, OpenAiFailure, OpenAiService } from '../../service/openai/types';
import type { RouteModule } from '../http/route-module';
import { DEFAULT_MAX_BODY_BYTES } from '../http/api-routes';
import { isAuthorized } from '../http/auth';
import { readJson } from '../http/read-body';
import { decodePathPart, parseRequestTarget } from '../http/request-target';
import { sendJson } from '../http/respond';
import { FrameWriter } from './frame-writer';

/** What the `/v1/*` adapter needs from its host. */
export interface OpenAiHttpContext {
  openai: OpenAiService;
  /** When set, every `/v1/*` request needs `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string | null;
}

const COMPLETION_PATHS: Record<string, OpenAiEndpoint> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'text',
};

/** True for `/v1` and everything under `/v1/`. */
export function isOpenAiPath(pathname: string): boolean {
  return pathname === '/v1' || pathname.startsWith('/v1/');
}

/**
 * Serves OpenAI's `GET /v1/models`, `POST /v1/chat/completions` and `POST /v1/completions`
 * (streamed as server-sent events or not). Returns false, touching nothing, when the path is
 * not under `/v1`, so a host mounts it with one line. The host does the Host/Origin checks;
 * this adds the optional bearer key and never sets CORS headers.
 */
export async function handleOpenAi(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: OpenAiHttpContext,
): Promise<boolean> {
  const target = parseRequestTarget(req.url);
  const pathname = target.ok ? target.url.pathname.replace(/\/+$/, '') : '';
  if (!target.ok) {
    sendFailure(res, ctx.openai.failure(400, target.message, 'invalid_request_error', 'invalid_url'));
    return true;
  }
  if (!isOpenAiPath(pathname)) return false;
  const arrivedAt = ctx.openai.now();
  if (ctx.apiKey && !isAuthorized(req.headers.authorization, ctx.apiKey)) {
    sendUnauthorized(res, ctx.openai);
    return true;
  }
  const endpoint = COMPLETION_PATHS[pathname];
  if (endpoint) await completion(req, res, ctx, endpoint, arrivedAt);
  else serveModels(req, res, ctx.openai, pathname);
  return true;
}

/** The same adapter as a route module for the headless host's `routes` option. */
export function openAiRoutes(ctx: OpenAiHttpContext): RouteModule {
  return {
    prefix: '/v1/',
    handle: async (req, res) => {
      await handleOpenAi(req, res, ctx);
    },
    sendUnauthorized: (res) => sendUnauthorized(res, ctx.openai),
  };
}

/** OpenAI's 401 for a missing or wrong key, with a Bearer challenge. */
function sendUnauthorized(res: ServerResponse, openai: OpenAiService): void {
  const failure = openai.failure(
    401,
    'Incorrect or missing API key: send the header Authorization: Bearer <key> with the key this server was started with.',
    'invalid_request_error',
    'invalid_api_key',
  );
  sendFailure(res, { ...failure, headers: { 'WWW-Authenticate': 'Bearer' } });
}

function serveModels(
  req: IncomingMessage,
  res: ServerResponse,
  openai: OpenAiService,
  pathname: string,
): void {
  // The host refused undecodable paths already; `?? ''` only satisfies the type.
  const modelId = pathname.startsWith('/v1/models/')
    ? (decodePathPart(pathname.slice('/v1/models/'.length)) ?? '')
    : null;
  if (pathname !== '/v1/models' && modelId === null)
    return sendFailure(
      res,
      openai.failure(
        404,
        `Unknown route ${req.method} ${pathname}: this server has GET /v1/models, POST /v1/chat/completions and POST /v1/completions.`,
        undefined,
        'unknown_url',
      ),
    );
  if (req.method !== 'GET')
    return sendFailure(res, {
      ...openai.failure(405, `Use GET for ${pathname}.`),
      headers: { Allow: 'GET' },
    });
  if (modelId === null) return sendJson(res, 200, openai.listModels());
  const model = openai.retrieveModel(modelId);
  if ('status' in model) return sendFailure(res, model);
  sendJson(res, 200, model);
}

async function completion(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: OpenAiHttpContext,
  endpoint: OpenAiEndpoint,
  arrivedAt: number,
): Promise<void> {
  const { openai } = ctx;
  if (req.method !== 'POST')
    return sendFailure(res, {
      ...openai.failure(405, `Use POST for this route.`),
      headers: { Allow: 'POST' },
    });
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return sendFailure(
      res,
      openai.failure(415, 'Send the body as JSON with Content-Type: application/json.'),
    );
  const body = await readRequestJson(req, res, ctx);
  if (body === null) return;
  const writer = new FrameWriter(res);
  const deadline = req.headers[DEADLINE_HEADER];
  const call = openai.start(
    endpoint,
    body.value,
    writer.write,
    arrivedAt,
    Array.isArray(deadline) ? deadline.join(',') : deadline,
  );
  if (!call) return;
  const onClose = () => {
    if (writer.isEnded) return;
    writer.markGone();
    call.cancel();
  };
  if (res.destroyed || req.socket.destroyed) return onClose();
  res.once('close', onClose);
}

/** The parsed body, or null once a 413 (too large) or 400 (not JSON) has been sent. */
async function readRequestJson(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: OpenAiHttpContext,
): Promise<{ value: unknown } | null> {
  // 1 MiB: far more than any prompt the model holds.
  const body = await readJson(req, DEFAULT_MAX_BODY_BYTES).catch((error: unknown) => {
    if (res.destroyed) return null; // the client went away mid-body: nobody to answer
    throw error;
  });
  if (body === null) return null;
  if (body.kind === 'json') return { value: body.value };
  if (body.kind === 'too-large') {
    res.setHeader('Connection', 'close');
    sendFailure(res, ctx.openai.failure(413, `The request body is larger than ${body.maxBytes} bytes.`));
  } else if (body.kind === 'too-complex') {
    const message = `The request body ${body.problem}; it was refused before parsing.`;
    sendFailure(res, ctx.openai.failure(400, message, undefined, 'invalid_json'));
  } else {
    const message = `We could not parse the JSON body of your request: ${body.message}`;
    sendFailure(res, ctx.openai.failure(400, message, undefined, 'invalid_json'));
  }
  return null;
}

function sendFailure(res: ServerResponse, failure: OpenAiFailure): void {
  for (const [name, value] of Object.entries(failure.headers)) res.setHeader(name, value);
  sendJson(res, failure.status, failure.body);
}
