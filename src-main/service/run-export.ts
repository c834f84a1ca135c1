import type { Writable } from 'node:stream';
import type { History } from '../history/history';
import type { Timeline } from '../telemetry/timeline/schema';
import type { ExportFormat } from '../telemetry/trace/export-formats';
import type { StreamOutOptions, TimelineSource } from '../telemetry/trace/stream-out';
import { EXPORT_FILE_TYPES, exportFileName } from '../telemetry/trace/export-formats';
import { flattenBatches } from '../telemetry/trace/stream-out';
import { writeExport } from '../telemetry/trace/write-export';
import { ServiceFailure } from './contract/result';

/** Where exported timelines come from: stored runs, and the live window of this process. */
export interface ExportSources {
  history: History;
  /** The live window's timelines, oldest first (a snapshot is taken when an export is prepared). */
  liveTimelines(): readonly Timeline[];
  /** Wall-clock now, epoch ms (for the file name's stamp). */
  wallNow(): number;
}

/** What to export: a format, and a stored run's id or null for the live window. */
export interface ExportRequest {
  format: ExportFormat;
  runId: string | null;
}

/**
 * An export checked and ready to stream: its file name and media type (for a download header
 * or a save dialog), how many requests it holds, and the timelines themselves, read lazily.
 */
export interface PreparedExport {
  format: ExportFormat;
  fileName: string;
  mimeType: string;
  numRows: number;
  /** The timelines, oldest first; a stored run is read in batches as it is consumed. */
  timelines(): TimelineSource;
  /** Streams the export into `out` with backpressure; resolves to the number of requests. */
  write(out: Writable, options?: StreamOutOptions): Promise<number>;
}

/**
 * Checks an export before a byte is written, so a host can still answer with an error: an
 * unknown run (or any run while history is off) is `not_found` with the reason. The same
 * preparation serves the HTTP download, the desktop save dialog and `npm run export`.
 */
export function prepareExport(sources: ExportSources, request: ExportRequest): PreparedExport {
  const { format, runId } = request;
  const fileName = (what: string) => exportFileName(format, what, sources.wallNow());
  const base = { format, mimeType: EXPORT_FILE_TYPES[format].mimeType };
  if (runId === null) {
    const snapshot = sources.liveTimelines();
    return withWriter({
      ...base,
      fileName: fileName('live'),
      numRows: snapshot.length,
      timelines: () => snapshot,
    });
  }
  const { history } = sources;
  const run = history.isPersistent ? history.runs.get(runId) : null;
  if (!run) {
    const why = history.isPersistent
      ? ''
      : ` (history is off: ${history.unavailable?.message ?? 'unavailable'})`;
    throw new ServiceFailure('not_found', `no stored run "${runId}"${why}`);
  }
  return withWriter({
    ...base,
    fileName: fileName(runId),
    numRows: run.numRequests,
    timelines: () => flattenBatches(history.timelines.batches({ runId })),
  });
}

function withWriter(prepared: Omit<PreparedExport, 'write'>): PreparedExport {
  return {
    ...prepared,
    write: (out, options) => writeExport(prepared.format, prepared.timelines(), out, options),
  };
}
