export * from './schema';
export * from './diagnosis';
export { deriveParts, deriveInterTokenGaps, transportMs } from './derive';
export type { DerivedParts } from './derive';
export { checkTimeline, TimelineBroken, PART_TOLERANCE_MS } from './check';
export { TimelineRecorder } from './recorder';
export type { TimelineMeta } from './recorder';
export { canonicalTimeline } from './canonical';
