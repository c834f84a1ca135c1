import type { Writable } from 'node:stream';
import { writeChromeTrace } from './chrome-trace';
import { writeCsv } from './csv-export';
import type { ExportFormat } from './export-formats';
import { writeJsonl } from './jsonl-export';
import type { StreamOutOptions, TimelineSource } from './stream-out';

const WRITERS: Readonly<Record<ExportFormat, typeof writeCsv>> = {
  csv: writeCsv,
  jsonl: writeJsonl,
  'chrome-trace': writeChromeTrace,
};

/**
 * Streams `source` into `out` in `format`, with backpressure (flat memory however many rows).
 * Resolves to the number of requests written. The one place a format picks its writer.
 */
export function writeExport(
  format: ExportFormat,
  source: TimelineSource,
  out: Writable,
  options: StreamOutOptions = {},
): Promise<number> {
  return WRITERS[format](source, out, options);
}
