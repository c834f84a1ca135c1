import type { IncomingMessage } from 'node:http';

/** The body was larger than the route accepts. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`request body is larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * Reads a request body as UTF-8, refusing more than `maxBytes`: a declared Content-Length over
 * the limit fails before a byte is read. On refusal the stream is paused, not destroyed, so
 * the caller can still answer 413 (with `Connection: close`) on the same socket.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) return Promise.reject(new BodyTooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let numBytes = 0;
    const onData = (chunk: Buffer) => {
      numBytes += chunk.length;
      if (numBytes <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      reject(new BodyTooLarge(maxBytes));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** A JSON body read under a byte limit, or why it was refused (each route answers in its own format). */
export type JsonBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'too-large'; maxBytes: number }
  | { kind: 'not-json'; message: string };

/**
 * Reads and parses a JSON body under `maxBytes`; an empty body reads as `emptyValue` when one
 * is given (otherwise it is not JSON). Errors other than the size limit (a broken socket) throw.
 */
export async function readJson(
  req: IncomingMessage,
  maxBytes: number,
  emptyValue?: unknown,
): Promise<JsonBody> {
  let text: string;
  try {
    text = await readBody(req, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) return { kind: 'too-large', maxBytes };
    throw error;
  }
  if (emptyValue !== undefined && text.trim() === '') return { kind: 'json', value: emptyValue };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: 'not-json', message: (error as Error).message };
  }
}
