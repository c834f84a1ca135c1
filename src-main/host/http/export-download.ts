import type { ServerResponse } from 'node:http';
import type { ExportRequest, PreparedExport } from '../../service/run-export';
import { ServiceFailure } from '../../service/contract/result';
import type { ServiceApi } from '../../service/contract/service-api';
import type { Log } from '../../telemetry/log/log';
import { consoleLog, reasonOf } from '../../telemetry/log/log';
import { EXPORT_FORMATS, isExportFormat } from '../../telemetry/trace/export-formats';
import { failure, sendResult } from './respond';

const CHUNK_CHARS = 64 * 1024;

/** Checks and prepares an export (throws ServiceFailure `not_found` for an unknown run). */
export type ExportOpener = (request: ExportRequest) => PreparedExport;

/** `/api/export.<format>`: the format named in the path, or null for any other path. */
export function exportFormatOf(pathname: string): string | null {
  const match = /^\/api\/export\.([^/]+)$/.exec(pathname);
  return match ? match[1]! : null;
}

/**
 * Serves `GET /api/export.<format>?runId=…` (no runId: the live timelines) as a download that
 * streams from the store as the socket drains, so a large run never sits in one buffer. An
 * unknown format or run is answered with an error before any byte of the file is sent.
 */
export async function serveExport(
  res: ServerResponse,
  source: { service: ServiceApi; openExport?: ExportOpener; log?: Log },
  url: URL,
  format: string,
): Promise<void> {
  if (!isExportFormat(format))
    return sendResult(
      res,
      failure('not_found', `no export format "${format}": use ${EXPORT_FORMATS.join(', ')}`),
    );
  const runId = url.searchParams.get('runId') || null;
  if (!source.openExport) {
    if (format === 'csv') return serveCsvValue(res, source.service, runId);
    return sendResult(res, failure('unavailable', `this host does not stream ${format} exports`));
  }
  let prepared: PreparedExport;
  try {
    prepared = source.openExport({ format, runId });
  } catch (error) {
    if (!(error instanceof ServiceFailure)) throw error;
    return sendResult(res, failure(error.code, error.message));
  }
  res.writeHead(200, downloadHeaders(prepared.fileName, prepared.mimeType, prepared.numRows));
  await prepared.write(res).catch((error: unknown) => {
    // The status line is gone: cutting the connection is the only way to tell the browser the
    // file is incomplete (it reports a failed download, not a file silently lacking rows).
    (source.log ?? consoleLog).warn(
      'export',
      `${format} download of ${runId ?? 'the live window'} cut off midway: ${reasonOf(error)}`,
    );
    res.destroy(error instanceof Error ? error : undefined);
  });
}

function downloadHeaders(fileName: string, mimeType: string, numRows: number): Record<string, string> {
  return {
    'Content-Type': mimeType,
    'Content-Disposition': `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
    'Cache-Control': 'no-store',
    'X-Row-Count': String(numRows),
  };
}

/** A host without a streaming source (tests over a service double): the CSV as one value. */
async function serveCsvValue(res: ServerResponse, service: ServiceApi, runId: string | null): Promise<void> {
  const result = await service.call('runs.exportCsv', { runId });
  if (!result.ok) return sendResult(res, result);
  const { fileName, csv, numRows } = result.value;
  res.writeHead(200, downloadHeaders(fileName, 'text/csv; charset=utf-8', numRows));
  for (let at = 0; at < csv.length; at += CHUNK_CHARS) {
    if (res.destroyed) return;
    const isFull = !res.write(csv.slice(at, at + CHUNK_CHARS));
    if (isFull) await drained(res);
  }
  res.end();
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
