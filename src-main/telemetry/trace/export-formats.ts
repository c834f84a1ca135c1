// The export formats a user can ask for, declared once: the contract's zod enum, the HTTP
// routes (`/api/export.<format>`), the CLI's `--format`, the renderer's buttons and the file
// names all derive from this list. Import-free, so the renderer may bundle it.

/** Every export format: one CSV row, one JSON line, or one Perfetto track per request. */
export const EXPORT_FORMATS = ['csv', 'jsonl', 'chrome-trace'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** How a format is offered and saved: its label in the UI, file extension and media type. */
export interface ExportFileType {
  label: string;
  extension: string;
  mimeType: string;
  /** One sentence for tooltips and `--help`. */
  summary: string;
}

/** The file type of each format. `.trace.json` because Perfetto and chrome://tracing open `.json`. */
export const EXPORT_FILE_TYPES: Readonly<Record<ExportFormat, ExportFileType>> = {
  csv: {
    label: 'CSV',
    extension: '.csv',
    mimeType: 'text/csv; charset=utf-8',
    summary: 'one row per request, the columns of docs/csv-columns.md',
  },
  jsonl: {
    label: 'JSONL',
    extension: '.jsonl',
    mimeType: 'application/x-ndjson; charset=utf-8',
    summary: 'every timeline field, one request per line; imports back unchanged',
  },
  'chrome-trace': {
    label: 'Perfetto',
    extension: '.trace.json',
    mimeType: 'application/json; charset=utf-8',
    summary: 'Chrome trace-event JSON: one track per request, for Perfetto or chrome://tracing',
  },
};

/** True when `name` is one of EXPORT_FORMATS (narrows untrusted input: a URL, a flag). */
export function isExportFormat(name: string): name is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(name);
}

/**
 * The file name an export is saved under: `first-frame-<what>-<UTC stamp><extension>`, with
 * anything but letters, digits, `.`, `_` and `-` in `what` replaced, so it is safe in a
 * Content-Disposition header and on every file system.
 */
export function exportFileName(format: ExportFormat, what: string, wallMs: number): string {
  const stamp = new Date(wallMs).toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const safe = what.replace(/[^\w.-]/g, '_').slice(0, 80);
  return `first-frame-${safe}-${stamp}${EXPORT_FILE_TYPES[format].extension}`;
}
