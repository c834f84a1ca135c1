import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the misbehaving remote answers a chat, chosen by the model the chat names. */
export const MISBEHAVIOURS = ['endless-line', 'huge-error', 'stall', 'endless-stream'] as const;
/** See MISBEHAVIOURS. */
export type Misbehaviour = (typeof MISBEHAVIOURS)[number];

/** A started misbehaving remote: its OpenAI-style base URL, and close() (cuts every connection). */
export interface MisbehavingRemote {
  baseUrl: string;
  close(): Promise<void>;
}

const CHUNK = 'a'.repeat(64 * 1024);
/** A huge error body is this many bytes (JSON that never closes its string). */
const HUGE_ERROR_BYTES = 256 * 1024 * 1024;

/**
 * An OpenAI-compatible server on 127.0.0.1 that lists one model per misbehaviour and answers a
 * chat with it: an SSE line that never ends, a 500 whose body runs to 256 MB, headers and then
 * nothing, or well-formed events forever. Writes wait for the socket to drain, so the bench's
 * own memory stays flat whatever the host does with them.
 */
export async function startMisbehavingRemote(): Promise<MisbehavingRemote> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void answer(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = '';
  for await (const chunk of req) if (body.length < 1_000_000) body += String(chunk);
  if (req.method === 'GET' && req.url?.endsWith('/models')) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: MISBEHAVIOURS.map((id) => ({ id, object: 'model', owned_by: 'misbehaving' })),
      }),
    );
    return;
  }
  const model = (JSON.parse(body || '{}') as { model?: string }).model;
  if (model === 'huge-error') {
    res.writeHead(500, { 'Content-Type': 'application/json' });
    await writeUntil(res, '{"error":{"message":"', HUGE_ERROR_BYTES);
    return void res.end();
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  if (model === 'stall') return res.flushHeaders();
  if (model === 'endless-line')
    return void writeUntil(res, 'data: {"choices":[{"delta":{"content":"', Infinity);
  const event = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'a' } }] })}\n\n`;
  await writeUntil(res, '', Infinity, event.repeat(256));
}

/** Writes `head`, then `filler` until `numBytes` are out or the client goes away. */
async function writeUntil(
  res: ServerResponse,
  head: string,
  numBytes: number,
  filler = CHUNK,
): Promise<void> {
  let numWritten = 0;
  res.write(head);
  while (numWritten < numBytes && !res.destroyed) {
    numWritten += filler.length;
    if (!res.write(filler)) await drainedOrClosed(res);
  }
}

/** Resolves when `res` drains or closes, leaving no listener behind. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
