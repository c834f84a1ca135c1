export { Runtime } from './runtime';
export { SettingsRefused } from './applied-settings';
export type { AppliedSettings } from './applied-settings';
export type { PageSummary, QueueSummary } from './runtime-summary';
export { slotSessionThreadsOf, slotThreadsOf } from './runtime-parts';
export * from './settings';
export { defaultRuntimeOptions } from './runtime-options';
export type { RuntimeOptions } from './runtime-options';
export type { GenerationRequest, GenerationSink, GenerationChunk, GenerationOutcome } from './scheduler';
export { collectGeneration } from './collect';
export type { CollectedGeneration } from './collect';
export type { CatalogueEntry, CatalogueModel, ChatTurn, ModelFolder } from './model';
export {
  findEntry,
  isRefTo,
  LOADABLE_FORMATS,
  loadModelFolder,
  ModelFolderError,
  refusalOf,
  TemplateError,
} from './model';
export {
  defaultDiscoveryEnvironment,
  isDiscoveredSource,
  MODEL_SOURCE_LABELS,
  weightsOriginOf,
} from './model';
export type { DiscoveryEnvironment, ModelSource, PlaceState } from './model';
export type { KeepAlive, Slot, SlotEvent, SlotStatus, SlotCause } from './slots';
export { DEFAULT_KEEP_ALIVE, loadMsOf } from './slots';
export type { ChatPlan, ChatPlanInput, ContextOverflow } from './forecast';
export { DEFAULT_SAMPLING } from './sampling';
export { CPU_PROVIDER, EXECUTION_PROVIDERS } from './engine/providers';
export type { ExecutionProvider, ProviderChoice, ProviderOutcome } from './engine/providers';
export type { ProviderAvailability } from './engine/providers';
