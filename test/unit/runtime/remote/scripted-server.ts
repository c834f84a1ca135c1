import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one scripted route does with a request (a test double of a remote server, unit tests only). */
export type Script = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

/** A local HTTP server answering each path with its script; records every request it got. */
export interface ScriptedServer {
  baseUrl: string;
  origin: string;
  requests: { path: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

/** `/v1/models` as OpenAI-compatible servers document it: these model ids, owned by `ownedBy`. */
export function modelsScript(ids: string[], ownedBy: string): Script {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: ownedBy })) }),
    );
  };
}

/** Starts a scripted server on 127.0.0.1 (any free port). Unknown paths answer 404. */
export async function startScripted(routes: Record<string, Script>): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({ path, headers: req.headers, body });
      const script = routes[path];
      if (!script) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
        return;
      }
      void script(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `events` as a streamed response, one write per event, with a short pause between. */
export async function writeSlowly(
  res: ServerResponse,
  events: readonly string[],
  type: string,
): Promise<void> {
  res.writeHead(200, { 'Content-Type': type });
  for (const event of events) {
    res.write(event);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The events of an SSE fixture (each `data: …` block with its blank line). */
export function sseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => `${block}\n\n`);
}
