/** Host memory for model slots: locked host buffers, page residency, page-cache hints. */
export type {
  AdviceResult,
  AllocateOptions,
  HostBuffer,
  HostBufferBacking,
  HostMemory,
  HostMemoryCapabilities,
  MemlockLimit,
  ReadFileOptions,
  ReadTimings,
  Residency,
} from './types';
export { getHostMemory, loadHostMemory, type LoadHostMemoryOptions } from './loader';
export { createFallbackHostMemory } from './fallback';
export { ADDON_FILE, addonCandidates } from './native-addon';
export { slotPinningJson, type SlotPinningJson } from './slot-pinning';
export {
  armsForRep,
  COLD_THRESHOLD_PCT,
  measureColdPrefetch,
  PREFETCH_ARMS,
  summarizeMs,
  type MsSummary,
  type PrefetchArm,
  type PrefetchSample,
} from './prefetch-measure';
