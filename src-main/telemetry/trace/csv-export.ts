import { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import type { Timeline } from '../timeline/schema';
import { CSV_HEADER, toCsvRecord } from './csv-columns';
import type { StreamOutOptions, TimelineSource } from './stream-out';
import { mapTimelines } from './stream-out';

/**
 * CSV injection defence (OWASP), for every CSV the app writes: a text cell that begins with
 * `=`, `+`, `-`, `@`, tab or CR gets a leading `'`, so a spreadsheet shows it as text instead
 * of running it as a formula. Numbers (negative ones too) are left as numbers.
 */
export const FORMULA_SAFE_CSV = { escape_formulas: true } as const;

/** RFC 4180 output via csv-stringify: quotes where needed, CRLF-free `\n` rows, a header. */
const CSV_OPTIONS = {
  header: true,
  columns: [...CSV_HEADER],
  record_delimiter: 'unix' as const,
  ...FORMULA_SAFE_CSV,
};

/**
 * Streams one CSV row per timeline into `out` (header first). Rows are produced as `out`
 * drains, so 100,000 stored rows export in flat memory. Resolves to the number of rows.
 */
export async function writeCsv(
  source: TimelineSource,
  out: Writable,
  options: StreamOutOptions = {},
): Promise<number> {
  const records = mapTimelines(source, (t) => [toCsvRecord(t)]);
  await pipeline(Readable.from(records.chunks), stringify(CSV_OPTIONS), out, {
    end: options.isEndingOutput ?? true,
  });
  return records.count();
}

/** The CSV of a small, in-memory set as one string (same columns and quoting as writeCsv). */
export function toCsvString(timelines: readonly Timeline[]): string {
  return stringifySync(timelines.map(toCsvRecord), CSV_OPTIONS);
}
