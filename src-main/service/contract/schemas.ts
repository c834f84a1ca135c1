import { z } from 'zod';
import { INPUT_LIMITS } from '../../limits';
import { SAMPLING_FIELD_SCHEMAS, SAMPLING_LIMITS } from '../../runtime/sampling/limits';
import { KeepAliveSchema, SLOT_STATUSES, SlotEventRecordSchema } from '../../telemetry/residency/schema';
import { TimelineSchema } from '../../telemetry/timeline/schema';
import { VARIANT_NAMES } from '../../runtime/model/variant-names';
import { MODEL_SOURCES } from '../../runtime/model/model-sources';
import { LISTING_STATUSES } from '../../runtime/model/listing-status';
import { ConversionProgressSchema } from './model-schemas';
import { GRAPH_CACHE_STATUSES } from '../../runtime/slot-worker/graph-cache-status';
import { FusionOutcomeSchema } from '../../runtime/model/fuse-at-load/outcome';
import { ERROR_CODES } from './result';
import { wellFormedText } from './text';

/**
 * Sampling settings a caller may set; everything optional, validated before it reaches the
 * runtime, with the runtime's own bounds (SAMPLING_LIMITS). `maxTokens` is bounded by the
 * runtime's configured output limit, which refuses a larger value with its limit named.
 */
export const SamplingSchema = z.object({
  temperature: SAMPLING_FIELD_SCHEMAS.temperature.optional(),
  topK: SAMPLING_FIELD_SCHEMAS.topK.optional(),
  topP: SAMPLING_FIELD_SCHEMAS.topP.optional(),
  minP: SAMPLING_FIELD_SCHEMAS.minP.optional(),
  repeatPenalty: SAMPLING_FIELD_SCHEMAS.repeatPenalty.optional(),
  presencePenalty: SAMPLING_FIELD_SCHEMAS.presencePenalty.optional(),
  frequencyPenalty: SAMPLING_FIELD_SCHEMAS.frequencyPenalty.optional(),
  seed: SAMPLING_FIELD_SCHEMAS.seed.optional(),
  maxTokens: SAMPLING_FIELD_SCHEMAS.maxTokens.optional(),
  stop: z.array(SAMPLING_FIELD_SCHEMAS.stopString).max(SAMPLING_LIMITS.stop.maxCount).optional(),
  /** Generate through end-of-turn tokens up to maxTokens (fixed output lengths for benchmarks). */
  ignoreEos: z.boolean().optional(),
});
export type Sampling = z.infer<typeof SamplingSchema>;

/** A ServiceError as it crosses a transport (checked on the receiving side). */
export const ServiceErrorSchema = z.object({ code: z.enum(ERROR_CODES), message: z.string() });

/** A problem the core logged (a failed write, eviction, prune or export): the log file has it too. */
export const ProblemSchema = z.object({
  atWallMs: z.number(),
  /** The part that hit it: `slots`, `store`, `chat`, `events`, `export`, `timeline`… */
  topic: z.string(),
  message: z.string(),
});
export type Problem = z.infer<typeof ProblemSchema>;

/** One chat message as the chat template sees it. */
export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: wellFormedText().max(INPUT_LIMITS.maxMessageChars),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export { KeepAliveSchema, SLOT_CAUSES, SLOT_STATUSES } from '../../telemetry/residency/schema';
export { SAMPLING_LIMITS } from '../../runtime/sampling/limits';
export type { KeepAlive, SlotCause, SlotStatus } from '../../telemetry/residency/schema';

/** A model's own default sampling and where it comes from (`genai_config.json search`). */
export const DefaultSamplingSchema = z.object({
  source: z.string(),
  doSample: z.boolean().nullable(),
  temperature: z.number().nullable(),
  topK: z.number().int().nullable(),
  topP: z.number().nullable(),
  repetitionPenalty: z.number().nullable(),
});

/** A variant name (the file it comes from: `model_q4.onnx` → `q4`, …). */
export const VariantSchema = z.enum(VARIANT_NAMES as [string, ...string[]]);

/**
 * One variant of a model folder the catalogue found (or a whole model that cannot run), with
 * content revisions or why not. `modelId` is the reference to send: `name:variant` (a folder-wide
 * error has the bare `name` and `variant: null`); `displayName` is "name · variant".
 */
export const ModelEntrySchema = z.object({
  modelId: z.string(),
  displayName: z.string(),
  name: z.string(),
  variant: VariantSchema.nullable(),
  /** The variant a bare `name` means. */
  isDefaultVariant: z.boolean(),
  path: z.string(),
  isBundled: z.boolean(),
  /**
   * Where it was found: bundled, the models folder, or (discovery on) Ollama, LM Studio, the
   * Hugging Face cache; `displayName` then ends with the store (`llama3.2:3b · Ollama`).
   */
  source: z.enum(MODEL_SOURCES),
  modelRevision: z.string().nullable(),
  tokenizerRevision: z.string().nullable(),
  layoutRevision: z.string().nullable(),
  numParams: z.number().nullable(),
  numLayers: z.number().nullable(),
  weightBytes: z.number().nullable(),
  /** The weights' storage read from the graph (`fp16`, `int4`, `int4 + fp32`, …), not the config's torch_dtype. */
  weightDtype: z.string().nullable(),
  /** The graph's past K/V element type (`float32` or `float16`). */
  kvDtype: z.string().nullable(),
  /** What it is: a Hugging Face ONNX folder, an onnxruntime-genai folder (genai_config.json), a GGUF file; null when broken. */
  format: z.enum(['hf-onnx', 'genai', 'gguf']).nullable(),
  /** The model's own default sampling (genai_config.json `search`, Ollama's parameters), shown as such in Settings; null if none. */
  defaultSampling: DefaultSamplingSchema.nullable(),
  /** Whether it runs, or why not in kind: not supported yet (a valid file First Frame cannot run yet) or broken. */
  status: z.enum(LISTING_STATUSES),
  /** Why it cannot run (null when `status` is ok); shown after UNUSABLE_WORDS[status]. */
  error: z.string().nullable(),
  /** Where a model downloaded in the app came from (`someone/Model-GGUF at 0123abc (huggingface.co)`), else null. */
  origin: z.string().nullable().optional(),
});
export type ModelEntry = z.infer<typeof ModelEntrySchema>;
export {
  LISTING_STATUSES,
  UNUSABLE_WORDS,
  unusableSentence,
  whyUnusable,
} from '../../runtime/model/listing-status';
export type { ListingStatus, UnusableStatus } from '../../runtime/model/listing-status';

/** What a slot card shows: prepared state for one (model revision, precision, layout, provider). */
export const SlotSnapshotSchema = z.object({
  slotId: z.string(),
  modelId: z.string(),
  /** "name · variant", as the picker shows the model. */
  displayName: z.string(),
  variant: VariantSchema,
  status: z.enum(SLOT_STATUSES),
  failureReason: z.string().nullable(),
  modelRevision: z.string(),
  tokenizerRevision: z.string(),
  layoutRevision: z.string(),
  slotRevision: z.number().int(),
  precision: z.string(),
  /** Where the weights come from when not an ONNX file as given (`GGUF q4_k_m, converted to ONNX: …`), or null. */
  weightsOrigin: z.string().nullable(),
  /** The provider the session runs on (the requested one until the slot has loaded). */
  executionProvider: z.string(),
  /** The provider the slot asked for. */
  requestedProvider: z.string(),
  /** Why the requested provider is not the one in use (e.g. "webgpu: no adapter"), or null. */
  providerUnavailableReason: z.string().nullable(),
  /** Whether the last load built from ONNX Runtime's cached optimized graph. */
  graphCache: z.enum(GRAPH_CACHE_STATUSES).nullable(),
  /** Why the last load's graph was not cached (`off`: no room, unusable, no folder …), or null. */
  graphCacheReason: z.string().nullable(),
  /** Nodes ONNX Runtime runs per decode step (its optimized graph's), or null before a count. */
  decodeNodesPerStep: z.number().int().nullable(),
  /** Why there is no count (no optimized graph saved for this slot …), or null. */
  decodeNodesReason: z.string().nullable(),
  /** How the last load runs the K/V, in plain words ("written in place", or through onnxruntime-node and why); null before a load. */
  kvPath: z.string().nullable(),
  /** Bytes the slot's one K/V buffer allocates now (K/V written in place: every seat's whole room, beyond the pages the K/V budget counts); null when its K/V lives in per-step arrays. */
  kvBufferBytes: z.number().nullable(),
  /** Which graph the last load runs (fused at load, as exported and why, already fused); null before a load. */
  fusion: FusionOutcomeSchema.nullable(),
  /** Of the last load, ms spent recognizing, rewriting and checking the graph (0 when the load cache answered); null before a load. */
  fusionMs: z.number().nullable(),
  /** The last load's read + session build + warm-up, ms; null before the first load. */
  loadMs: z.number().nullable(),
  /** Processor threads the last load built the session with (ONNX Runtime's intra-op pool); null before a load. */
  numThreads: z.number().int().min(1).nullable(),
  /** Whether those threads spin while a step computes (the setting `canSpinThreads`); null before a load. */
  canSpinThreads: z.boolean().nullable(),
  hostBytes: z.number(),
  isPinned: z.boolean(),
  pinnedReason: z.string().nullable(),
  lockedBytes: z.number(),
  residentPct: z.number().nullable(),
  keepAlive: KeepAliveSchema,
  /** Wall-clock epoch ms when the idle slot will be unloaded, or null (in use / forever). */
  expiresAtWallMs: z.number().nullable(),
  numHits: z.number().int(),
  numActiveSequences: z.number().int(),
  lastUsedWallMs: z.number().nullable(),
  /** The conversion this load is doing (a GGUF file into the graph cache), or null. */
  conversion: ConversionProgressSchema.nullable(),
});
export type SlotSnapshot = z.infer<typeof SlotSnapshotSchema>;

/** One slot transition with its cause; the residency timeline is a list of these. */
export const SlotEventSchema = SlotEventRecordSchema;
export type SlotEvent = z.infer<typeof SlotEventSchema>;

/** Context page cache totals and per-conversation coverage. */
export const PageStatsSchema = z.object({
  pageSize: z.number().int(),
  numPages: z.number().int(),
  numHeldPages: z.number().int(),
  bytes: z.number(),
  budgetBytes: z.number(),
  numLookups: z.number().int(),
  numHitTokens: z.number().int(),
  numLookupTokens: z.number().int(),
  hitRate: z.number().nullable(),
  numEvicted: z.number().int(),
  /** Pages kept on disk across restarts (`none`: this process keeps none, e.g. history off). */
  disk: z.object({
    state: z.enum(['on', 'off', 'full', 'none']),
    numPages: z.number().int(),
    bytes: z.number(),
    budgetBytes: z.number(),
    numWritten: z.number().int(),
    numRead: z.number().int(),
    numRefused: z.number().int(),
    numEvicted: z.number().int(),
  }),
  conversations: z.array(
    z.object({
      conversationId: z.string(),
      numPromptTokens: z.number().int(),
      numCachedTokens: z.number().int(),
    }),
  ),
});
export type PageStats = z.infer<typeof PageStatsSchema>;

/** Engine load at one instant, for the seats/queue-over-time chart. */
export const EngineStatsSchema = z.object({
  atWallMs: z.number(),
  numRunning: z.number().int(),
  numWaiting: z.number().int(),
  numSeats: z.number().int(),
  maxQueue: z.number().int(),
});
export type EngineStats = z.infer<typeof EngineStatsSchema>;

export { TimelineSchema };
