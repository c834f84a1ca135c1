import type { ServerResponse } from 'node:http';
import type { ErrorCode, Result } from '../../service/contract/result';
import { failure } from '../../service/contract/result';

/** HTTP status for each service error code: the body always carries the Result anyway. */
const STATUS_OF: Record<ErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  queue_full: 429,
  unavailable: 503,
  forbidden: 403,
  internal: 500,
};

/** The HTTP status a Result travels with. */
export function statusOf(result: Result<unknown>): number {
  return result.ok ? 200 : STATUS_OF[result.error.code];
}

/** A failed Result, for errors the host itself finds (bad JSON, unknown method, too large). */
export { failure };

/** Writes a JSON body with an explicit status; never cached (answers are live data). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** Writes a Result with the status its error code maps to. */
export function sendResult(res: ServerResponse, result: Result<unknown>, status = statusOf(result)): void {
  sendJson(res, status, result);
}

/** Writes a plain-text error a person will read (403 pages, 404s outside the API). */
export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text.endsWith('\n') ? text : `${text}\n`);
}
