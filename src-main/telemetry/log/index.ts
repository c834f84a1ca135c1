export { consoleLog, reasonOf } from './log';
export type { Log, LogEntry } from './log';
export { openFileLog, MAX_LOG_BYTES, NUM_RECENT_ENTRIES } from './file-log';
export type { FileLog } from './file-log';
