import type { IncomingMessage } from 'node:http';
import { JsonWorkMeter } from '../../json-work';
import { JSON_WORK_LIMITS } from '../../limits';

/** The body was larger than the route accepts. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`request body is larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/** The body's JSON would cost more to parse than JSON_WORK_LIMITS.requestBody allows. */
class BodyTooComplex extends Error {
  constructor(readonly problem: string) {
    super(`request body ${problem}`);
    this.name = 'BodyTooComplex';
  }
}

/**
 * The body's bytes, each chunk measured by `meter` as it arrives: the first chunk past its
 * limits rejects at once (BodyTooComplex), so the answer goes out from the first bytes that
 * show it. The rest is still read and dropped, never kept or parsed (up to `maxBytes`; past that
 * the connection is destroyed): a client writing the rest then reads the answer on an open
 * connection instead of failing its write on a closed one.
 */
function readBodyBytes(req: IncomingMessage, maxBytes: number, meter: JsonWorkMeter): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) return Promise.reject(new BodyTooLarge(maxBytes));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let numBytes = 0;
    const stop = (error: Error) => {
      req.off('data', onData);
      req.pause();
      reject(error);
    };
    const drop = (error: Error) => {
      chunks.length = 0;
      req.off('data', onData);
      req.on('data', (chunk: Buffer) => {
        numBytes += chunk.length;
        if (numBytes > maxBytes) req.destroy();
      });
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      numBytes += chunk.length;
      if (numBytes > maxBytes) return stop(new BodyTooLarge(maxBytes));
      const problem = meter.feed(chunk);
      if (problem !== null) return drop(new BodyTooComplex(problem));
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * A JSON body read under a byte limit, or why it was refused (each route answers in its own
 * format): `too-complex` is a body whose parse would cost too much (JSON_WORK_LIMITS.requestBody),
 * refused before parsing with the reason, its rest read and dropped; `too-large` leaves the rest
 * unread: answer it with `Connection: close`.
 */
export type JsonBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'too-large'; maxBytes: number }
  | { kind: 'too-complex'; problem: string }
  | { kind: 'not-json'; message: string };

/**
 * Reads and parses a JSON body under `maxBytes`, measuring its depth and items as it arrives (a
 * 1 MiB body nested 500k deep parsed for ~0.5 s on the serving thread); an empty body reads as
 * `emptyValue` when one is given (otherwise it is not JSON). Errors other than the size limit
 * (a broken socket) throw.
 */
export async function readJson(
  req: IncomingMessage,
  maxBytes: number,
  emptyValue?: unknown,
): Promise<JsonBody> {
  let text: string;
  try {
    text = (await readBodyBytes(req, maxBytes, new JsonWorkMeter(JSON_WORK_LIMITS.requestBody))).toString(
      'utf8',
    );
  } catch (error) {
    if (error instanceof BodyTooLarge) return { kind: 'too-large', maxBytes };
    if (error instanceof BodyTooComplex) return { kind: 'too-complex', problem: error.problem };
    throw error;
  }
  if (emptyValue !== undefined && text.trim() === '') return { kind: 'json', value: emptyValue };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: 'not-json', message: (error as Error).message };
  }
}
