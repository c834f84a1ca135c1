import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

/** What a raw HTTP exchange returned. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP request with full control of the headers (fetch will not let a test forge Host),
 * to 127.0.0.1:`port`. Host defaults to the honest `127.0.0.1:port`.
 */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POST a JSON body to `/api/call/<method>`. */
export function callRaw(
  port: number,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return rawRequest(port, `/api/call/${method}`, {
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
