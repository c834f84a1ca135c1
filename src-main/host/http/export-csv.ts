import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { ServiceApi } from '../../service/contract';
import { sendResult } from './respond';

const CHUNK_CHARS = 64 * 1024;

/**
 * Serves `GET /api/export.csv?runId=…` (no runId: the live timelines) as a download, written
 * in chunks that respect the socket's backpressure so a large run does not sit in one buffer.
 */
export async function serveCsvExport(
  res: ServerResponse,
  source: { service: ServiceApi; writeCsv?: CsvWriter },
  url: URL,
): Promise<void> {
  const runId = url.searchParams.get('runId') || null;
  if (source.writeCsv) return streamCsv(res, source.writeCsv, runId);
  const result = await source.service.call('runs.exportCsv', { runId });
  if (!result.ok) return sendResult(res, result);
  const { fileName, csv, numRows } = result.value;
  res.writeHead(200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
    'Cache-Control': 'no-store',
    'X-Row-Count': String(numRows),
  });
  for (let at = 0; at < csv.length; at += CHUNK_CHARS) {
    if (res.destroyed) return;
    const isFull = !res.write(csv.slice(at, at + CHUNK_CHARS));
    if (isFull) await drained(res);
  }
  res.end();
}

/** Writes a run's CSV (null: the live timelines) into a stream; resolves to the row count. */
export type CsvWriter = (runId: string | null, out: Writable) => Promise<number>;

/** Streams rows from the store as the socket drains: 100,000 rows never sit in memory at once. */
async function streamCsv(res: ServerResponse, writeCsv: CsvWriter, runId: string | null): Promise<void> {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  res.writeHead(200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="first-frame-${(runId ?? 'live').replace(/[^\w.-]/g, '_')}-${stamp}.csv"`,
    'Cache-Control': 'no-store',
  });
  await writeCsv(runId, res).catch(() => res.destroy());
}

/** Resolves when the socket can take more, or is gone; removes both listeners either way. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
