export { createCore } from './create-core';
export type { Core, CoreOptions, SavePathPicker } from './core-options';
export { createService } from './service';
export type { Handlers } from './service';
export { EventHub } from './event-hub';
export * from './contract';
export { prepareExport } from './run-export';
export type { ExportRequest, ExportSources, PreparedExport } from './run-export';
export type { TraceUpload } from './trace-import';
