import { EXPORTED_COLUMNS } from '../timeline/columns';
import type { Timeline } from '../timeline/schema';

/** One CSV column: its header, unit and how a timeline fills it (null → empty cell). */
export interface CsvColumn {
  name: string;
  unit: string;
  value: (t: Timeline) => string | number | null;
}

/** ms values are written to 0.001 ms (1 µs), the tolerance the timeline invariants use. */
const ms = (value: number | null): number | null => (value === null ? null : Math.round(value * 1000) / 1000);

/**
 * Every CSV column, in order: one row per request, the exported columns of the timeline's one
 * column declaration (TIMELINE_COLUMNS), with `*_ms` values rounded to 1 µs. docs/csv-columns.md
 * documents each one and maps it to vLLM, guidellm and Ollama field names; a test keeps the two
 * in step.
 */
export const CSV_COLUMNS: readonly CsvColumn[] = EXPORTED_COLUMNS.map((c) => ({
  name: c.name,
  unit: c.unit,
  value: c.name.endsWith('_ms') ? (t: Timeline) => ms(c.value(t) as number | null) : c.value,
}));

/** The CSV header row. */
export const CSV_HEADER: readonly string[] = CSV_COLUMNS.map((c) => c.name);

/** One timeline as a CSV record, in CSV_COLUMNS order. */
export function toCsvRecord(t: Timeline): (string | number | null)[] {
  return CSV_COLUMNS.map((c) => c.value(t));
}
