import type { IncomingMessage, ServerResponse } from 'node:http';
import { INPUT_LIMITS, TRACE_LIMITS } from '../../limits';
import { ServiceFailure } from '../../service/contract/result';
import type { TraceImportResult } from '../../service/contract/methods';
import { failure, sendResult } from './respond';

/** Imports an uploaded trace (text chunks as they arrive); resolves with what it did. */
export type TraceImporter = (upload: {
  fileName: string;
  chunks: AsyncIterable<string>;
  skipBadLines: boolean;
  /** The declared Content-Length (null: chunked), counted against the import budget. */
  numBytes: number | null;
}) => Promise<TraceImportResult>;

/**
 * Serves `POST /api/traces/import?fileName=…&skipBadLines=true|false` with the JSONL file as
 * the raw body (`curl --data-binary @trace.jsonl`): streamed into the import worker as it
 * arrives, refused with 413 past TRACE_LIMITS.maxFileBytes, and with 429 before a byte is read
 * when the import budget has no room and too many imports wait. Answers the same Result as the
 * `traces.import` call.
 */
export async function serveTraceUpload(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  importTrace: TraceImporter,
): Promise<void> {
  if (req.method !== 'POST')
    return sendResult(res, failure('invalid_input', 'upload a trace with POST'), 405);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > TRACE_LIMITS.maxFileBytes) return refuseTooLarge(res);
  const fileName = (url.searchParams.get('fileName') ?? 'upload.jsonl').slice(
    0,
    INPUT_LIMITS.maxFileNameChars,
  );
  const skipBadLines = url.searchParams.get('skipBadLines') === 'true';
  const tooLarge = { isHit: false };
  try {
    const numBytes = Number.isFinite(declared) ? declared : null;
    const value = await importTrace({ fileName, chunks: bodyChunks(req, tooLarge), skipBadLines, numBytes });
    sendResult(res, { ok: true, value });
  } catch (error) {
    if (tooLarge.isHit) return refuseTooLarge(res);
    if (error instanceof ServiceFailure) {
      // Refused before its body was read: the connection cannot carry another request.
      res.setHeader('Connection', 'close');
      return sendResult(res, failure(error.code, error.message));
    }
    sendResult(res, failure('invalid_input', error instanceof Error ? error.message : String(error)));
  }
}

/** The body as UTF-8 text chunks (a character split across packets is joined), size-capped. */
async function* bodyChunks(req: IncomingMessage, tooLarge: { isHit: boolean }): AsyncGenerator<string> {
  req.setEncoding('utf8');
  let numChars = 0;
  for await (const chunk of req as AsyncIterable<string>) {
    numChars += chunk.length;
    // Characters ≤ bytes, so this never refuses a body within the byte limit.
    if (numChars > TRACE_LIMITS.maxFileBytes) {
      tooLarge.isHit = true;
      throw new Error('the upload is too large');
    }
    yield chunk;
  }
}

function refuseTooLarge(res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  sendResult(
    res,
    failure(
      'invalid_input',
      `a trace upload is at most ${TRACE_LIMITS.maxFileBytes.toLocaleString('en-US')} bytes`,
    ),
    413,
  );
}
