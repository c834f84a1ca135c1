import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { checkHeaders, hostPolicy } from '../http/host-guard';
import { sendText } from '../http/respond';
import type { OpenAiHttpContext } from './handle-openai';
import { handleOpenAi } from './handle-openai';

/** A running `/v1`-only server. */
export interface OpenAiServer {
  /** Base URL of the API, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A server with nothing but the `/v1/*` routes on 127.0.0.1, behind the same Host/Origin
 * guard as the headless host: for tests and the load bench's in-process mode. The app
 * mounts `handleOpenAi` on its headless host instead.
 */
export async function startOpenAiServer(ctx: OpenAiHttpContext, port = 0): Promise<OpenAiServer> {
  let policy: ReturnType<typeof hostPolicy> | null = null;
  const server = createServer((req, res) => {
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const verdict = policy
      ? checkHeaders(policy, req.headers.host, origin)
      : { isAllowed: false as const, message: 'starting up' };
    if (!verdict.isAllowed) return sendText(res, 403, verdict.message);
    handleOpenAi(req, res, ctx).then(
      (isHandled) => isHandled || sendText(res, 404, 'Not found: this server only has /v1/*'),
      (error: unknown) => (res.headersSent ? res.destroy() : sendText(res, 500, String(error))),
    );
  });
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
  policy = hostPolicy('127.0.0.1', boundPort);
  return { baseUrl: `http://127.0.0.1:${boundPort}/v1`, port: boundPort, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
