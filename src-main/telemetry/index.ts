export * from './timeline';
export { systemClock, ManualClock } from './clock';
export type { Clock } from './clock';
export * from './report';
export * from './trace';
export { syntheticTimelines, prng } from './synthetic/workload';
export type { SyntheticOptions } from './synthetic/workload';
export * from './residency';
export * from './log';
