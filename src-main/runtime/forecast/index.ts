export { fitChat } from './fit-chat';
export type { ChatFit, ChatEncoder, ContextOverflow, FitLimits } from './fit-chat';
export { planChat } from './plan-chat';
export type { ChatPlan, ChatPlanInput, PlanDeps } from './plan-chat';
export { PrefillRate } from './prefill-rate';
export type { PrefillEstimate } from './prefill-rate';
export type { QueueNow } from './plan-chat';
