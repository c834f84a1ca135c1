export { Scheduler } from './scheduler';
export type { EndedInPlan, LeftSeat, PrefillPlan, SchedulerOptions, StepPlan } from './scheduler';
export type { CompletedPage } from './page-ledger';
export type { SeatHolder } from './seat-ledger';
export { SEQUENCE_TRANSITIONS, Sequence } from './sequence';
export type { SequenceStatus } from './sequence';
export { RequestRejected, asRejected, describeRoute, routeRequest } from './route';
export type { RequestLimits, RoutedRequest, TokenizeLong } from './route';
export type { GenerationChunk, GenerationOutcome, GenerationRequest, GenerationSink } from './request';
