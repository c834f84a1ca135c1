export * from './timeline';
export { systemClock, ManualClock } from './clock';
export type { Clock } from './clock';
