export {
  importTraceLines,
  importTraceText,
  importTraceChunks,
  importTraceFile,
  TraceImport,
  TraceFileTooLarge,
} from './import-trace';
export { TraceImportJob } from './import-job';
export type { BatchSink } from './import-job';
export type { ImportSummary } from './import-protocol';
export { LineSplitter } from './line-splitter';
export type { SplitLine } from './line-splitter';
export type { ImportOptions, ImportResult } from './import-trace';
export { parseTraceLine, TraceImportError } from './parse-line';
export type { RejectedLine, LineResult } from './parse-line';
export { SeedRecordSchema, SEED_STAMPS, seedToTimeline, seedOrderProblem } from './seed-record';
export type { SeedRecord } from './seed-record';
export { CSV_COLUMNS, CSV_HEADER, toCsvRecord } from './csv-columns';
export type { CsvColumn } from './csv-columns';
export { PART_COLUMN_NAMES } from '../timeline/columns';
export { writeCsv, toCsvString, FORMULA_SAFE_CSV } from './csv-export';
export { writeJsonl } from './jsonl-export';
export { writeChromeTrace, requestEvents, clientEvents } from './chrome-trace';
export type { TraceEvent } from './chrome-trace';
export { EXPORT_FORMATS, EXPORT_FILE_TYPES, isExportFormat, exportFileName } from './export-formats';
export type { ExportFormat, ExportFileType } from './export-formats';
export { writeExport } from './write-export';
export { saveFileAtomically } from './save-file';
export { flattenBatches, streamOut } from './stream-out';
export type { TimelineSource, StreamOutOptions } from './stream-out';
export { runControls, positiveControlRecords, negativeControlRecord } from './controls';
export type { ControlsResult } from './controls';
export { TraceSidecarSchema, TRACE_SIDECAR_FORMAT, sidecarPathOf, readTraceSidecar } from './sidecar';
export type { TraceSidecar } from './sidecar';
export { TRACE_EXAMPLE_LINE, TRACE_EXAMPLE_RECORD } from './trace-example';
