export { Runtime } from './runtime';
export type { PageSummary, LoadSummary } from './runtime';
export { defaultRuntimeOptions } from './runtime-options';
export type { RuntimeOptions } from './runtime-options';
export type {
  GenerationRequest,
  GenerationSink,
  GenerationChunk,
  GenerationOutcome,
} from './scheduler/request';
export { collectGeneration } from './collect';
export type { CollectedGeneration } from './collect';
export type { CatalogueEntry, CatalogueModel, ChatTurn, ModelFolder } from './model';
export { loadModelFolder, ModelFolderError } from './model';
export type { KeepAlive, Slot, SlotEvent, SlotStatus, SlotCause } from './slots';
export { DEFAULT_KEEP_ALIVE } from './slots';
export type { ChatPlan, ChatPlanInput, ContextOverflow } from './forecast';
export { DEFAULT_SAMPLING } from './sampling';
