import { z } from 'zod';
import { TimelineSchema } from '../../telemetry/timeline/schema';

/** Sampling settings a caller may set; everything optional, validated before it reaches the runtime. */
export const SamplingSchema = z.object({
  temperature: z.number().min(0).max(5).optional(),
  topK: z.number().int().min(0).max(100_000).optional(),
  topP: z.number().gt(0).max(1).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  maxTokens: z.number().int().min(1).max(32_768).optional(),
  stop: z.array(z.string().min(1).max(200)).max(8).optional(),
  /** Generate through end-of-turn tokens up to maxTokens (fixed output lengths for benchmarks). */
  ignoreEos: z.boolean().optional(),
});
export type Sampling = z.infer<typeof SamplingSchema>;

/** One chat message as the chat template sees it. */
export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().max(200_000),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** How long a slot stays resident when idle: ms, `forever`, or `unload-after-request`. */
export const KeepAliveSchema = z.union([
  z.object({
    kind: z.literal('ms'),
    ms: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3_600_000),
  }),
  z.object({ kind: z.literal('forever') }),
  z.object({ kind: z.literal('unload-after-request') }),
]);
export type KeepAlive = z.infer<typeof KeepAliveSchema>;

export const SLOT_STATUSES = ['empty', 'prefetching', 'resident', 'active', 'evicting', 'failed'] as const;
/** A model slot's status (DESIGN §1). */
export type SlotStatus = (typeof SLOT_STATUSES)[number];
export const SLOT_CAUSES = ['request', 'prefetch', 'ttl', 'budget', 'manual', 'error'] as const;
/** Why a slot changed status. */
export type SlotCause = (typeof SLOT_CAUSES)[number];

/** A model folder the catalogue found, with content revisions (or why it cannot load). */
export const ModelEntrySchema = z.object({
  modelId: z.string(),
  displayName: z.string(),
  path: z.string(),
  isBundled: z.boolean(),
  modelRevision: z.string().nullable(),
  tokenizerRevision: z.string().nullable(),
  layoutRevision: z.string().nullable(),
  numParams: z.number().nullable(),
  numLayers: z.number().nullable(),
  weightBytes: z.number().nullable(),
  weightDtype: z.string().nullable(),
  error: z.string().nullable(),
});
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

/** What a slot card shows: prepared state for one (model revision, precision, layout, provider). */
export const SlotSnapshotSchema = z.object({
  slotId: z.string(),
  modelId: z.string(),
  status: z.enum(SLOT_STATUSES),
  failureReason: z.string().nullable(),
  modelRevision: z.string(),
  tokenizerRevision: z.string(),
  layoutRevision: z.string(),
  slotRevision: z.number().int(),
  precision: z.string(),
  executionProvider: z.string(),
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
});
export type SlotSnapshot = z.infer<typeof SlotSnapshotSchema>;

/** One slot transition with its cause; the residency timeline is a list of these. */
export const SlotEventSchema = z.object({
  slotId: z.string(),
  modelId: z.string(),
  fromStatus: z.enum(SLOT_STATUSES),
  toStatus: z.enum(SLOT_STATUSES),
  cause: z.enum(SLOT_CAUSES),
  reason: z.string().nullable(),
  atWallMs: z.number(),
});
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
