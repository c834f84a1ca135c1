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
