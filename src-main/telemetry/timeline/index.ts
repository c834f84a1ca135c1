export * from './schema';
export * from './diagnosis';
export { deriveBarParts, deriveParts, deriveInterTokenGaps, transportMs } from './derive';
export { CLIENT_CLOCK_TOLERANCE_MS, judgeClientTtft } from './client-ttft';
export type { ClientTtftVerdict } from './client-ttft';
export type { BarPartsMs, DerivedParts } from './derive';
export {
  checkRecorded,
  checkTimeline,
  TimelineBroken,
  PART_TOLERANCE_MS,
  UNATTRIBUTED_FLAG,
  unattributedProblem,
} from './check';
export { TimelineRecorder } from './recorder';
export type { TimelineMeta } from './recorder';
export { canonicalTimeline } from './canonical';
export { TIMELINE_COLUMNS, STORED_COLUMNS, EXPORTED_COLUMNS, PART_COLUMN_NAMES, partColumn } from './columns';
export type { TimelineColumn, ColumnUse } from './columns';
export * from './remote-facts';
