export { Scheduler } from './scheduler';
export type { PrefillPlan, SchedulerOptions, StepPlan } from './scheduler';
export { KvBudget } from './kv-budget';
export { Sequence } from './sequence';
export type { SequenceStatus } from './sequence';
export { RequestRejected, asRejected, describeRoute, routeRequest } from './route';
export type { RequestLimits, RoutedRequest, TokenizeLong } from './route';
export type { GenerationChunk, GenerationOutcome, GenerationRequest, GenerationSink } from './request';
