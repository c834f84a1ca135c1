import { z } from 'zod';
import { INPUT_LIMITS } from '../../limits';
import { AnswerFinishSchema, TimelineSchema } from '../../telemetry/timeline/schema';
import { ChatMessageSchema, SamplingSchema } from './schemas';
import { wellFormedText } from './text';

const idSchema = z.string().min(1).max(200);

/** What happens when a conversation outgrows the model's context. */
export const CONTEXT_OVERFLOWS = ['drop-oldest', 'refuse'] as const;

/**
 * A conversation's settings, kept with it: the system prompt, the model (null: the default
 * model), sampling (absent fields: the runtime's defaults) and the context overflow policy.
 */
export const ConversationSettingsSchema = z.object({
  systemPrompt: wellFormedText().max(INPUT_LIMITS.maxSystemPromptChars),
  modelId: idSchema.nullable(),
  sampling: SamplingSchema,
  contextOverflow: z.enum(CONTEXT_OVERFLOWS),
});
export type ConversationSettings = z.infer<typeof ConversationSettingsSchema>;

/** A named set of sampling settings. */
export const SamplingPresetSchema = z.object({
  name: wellFormedText(z.string().trim()).min(1).max(60),
  sampling: SamplingSchema,
  isBuiltIn: z.boolean(),
});
export type SamplingPreset = z.infer<typeof SamplingPresetSchema>;

/** The values the runtime uses for a sampling field that a conversation leaves empty. */
export const EffectiveSamplingSchema = z.object({
  temperature: z.number(),
  topK: z.number().int(),
  topP: z.number(),
  minP: z.number(),
  repeatPenalty: z.number(),
  presencePenalty: z.number(),
  frequencyPenalty: z.number(),
  maxTokens: z.number().int(),
});
export type EffectiveSampling = z.infer<typeof EffectiveSamplingSchema>;

/** Defaults for new chats, the runtime's sampling defaults, and the presets to pick from. */
export const ChatDefaultsSchema = z.object({
  settings: ConversationSettingsSchema,
  effective: EffectiveSamplingSchema,
  presets: z.array(SamplingPresetSchema),
});
export type ChatDefaults = z.infer<typeof ChatDefaultsSchema>;

/**
 * What sending would do (and, stored with an answer, what it was expected to do): tokens of
 * the request against the model's limit, how many the RAM tier already holds, the TTFT the
 * measured prefill rate predicts (null before any measurement), and why Send would be refused.
 */
export const SendForecastSchema = z.object({
  modelId: z.string(),
  numPromptTokens: z.number().int().min(0),
  promptLimit: z.number().int().min(0),
  contextTokens: z.number().int().min(0),
  numCachedTokens: z.number().int().min(0),
  numCachedPages: z.number().int().min(0),
  /** Of numCachedPages, those read back from disk first, their bytes and the read's estimate (ms). */
  numDiskPages: z.number().int().min(0).default(0),
  numDiskBytes: z.number().int().min(0).default(0),
  estDiskReadMs: z.number().min(0).nullable().default(null),
  numNewTokens: z.number().int().min(0),
  pageSize: z.number().int().min(1),
  numDroppedMessages: z.number().int().min(0),
  isSlotCold: z.boolean(),
  estTtftMs: z.number().min(0).nullable(),
  /** The waits inside estTtftMs (the step in flight, requests queued ahead); absent in older answers. */
  estWaitMs: z.number().min(0).nullable().default(null),
  /** Requests waiting for a seat when the forecast was made. */
  numAhead: z.number().int().min(0).default(0),
  refusal: z.string().nullable(),
  /**
   * Set for a remote model: the server tokenizes and fits the prompt, so the token and page
   * fields above count nothing (0) and say so here; the estimate is the model's recent median.
   */
  remote: z.object({ note: z.string() }).nullable().default(null),
});
export type SendForecast = z.infer<typeof SendForecastSchema>;

/** What the service keeps with an answer besides its text. */
export const MessageMetaSchema = z.object({
  forecast: SendForecastSchema.nullable().catch(null),
  numDroppedMessages: z.number().int().min(0).catch(0),
  /** The timeline that came with an imported answer (this install never ran that request). */
  importedTimeline: TimelineSchema.nullable().catch(null),
  /** Why the answer failed, in words (its request's error), kept even when no timeline is. */
  errorMessage: z.string().max(INPUT_LIMITS.maxMessageChars).nullable().catch(null),
  /**
   * The row is a checkpoint of an answer still streaming: once its request is no longer running
   * (the app was killed mid-answer) it reads as finish reason `interrupted`.
   */
  isCheckpoint: z.boolean().catch(false),
});
export type MessageMeta = z.infer<typeof MessageMetaSchema>;

/**
 * A stored message on the branch on screen, with the timeline of the request that produced it
 * (assistant messages) and its versions: the ids of every message that answers (or asks) the
 * same turn, oldest first, this one at `version` (1-based).
 */
export const StoredMessageSchema = z.object({
  messageId: idSchema,
  parentId: idSchema.nullable(),
  role: ChatMessageSchema.shape.role,
  content: z.string(),
  createdWallMs: z.number(),
  requestId: z.string().nullable(),
  timeline: TimelineSchema.nullable(),
  finishReason: AnswerFinishSchema.nullable(),
  /** Why the answer failed (null: it did not, or was stored before errors were kept). */
  errorMessage: z.string().nullable(),
  forecast: SendForecastSchema.nullable(),
  numDroppedMessages: z.number().int().min(0),
  versionIds: z.array(idSchema),
  version: z.number().int().min(1),
});
export type StoredMessage = z.infer<typeof StoredMessageSchema>;

/** A stored conversation as the chat sidebar lists it. */
export const ConversationSummarySchema = z.object({
  conversationId: idSchema,
  title: z.string(),
  createdWallMs: z.number(),
  updatedWallMs: z.number(),
  numMessages: z.number().int(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

/** One conversation opened: its summary, settings and the branch on screen. */
export const ConversationViewSchema = z.object({
  conversation: ConversationSummarySchema,
  settings: ConversationSettingsSchema,
  messages: z.array(StoredMessageSchema),
});
export type ConversationView = z.infer<typeof ConversationViewSchema>;

/** A started turn: its request and the forecast it was sent with. */
export const TurnStartedSchema = z.object({
  requestId: idSchema,
  /** The question this answer replies to (new for send and edit, the existing one for regenerate). */
  userMessageId: idSchema,
  forecast: SendForecastSchema,
});
export type TurnStarted = z.infer<typeof TurnStartedSchema>;

/** The JSON export format's version: import accepts exactly this. */
export const CONVERSATION_EXPORT_FORMAT = 'first-frame.conversation.v1';

/** One message of an exported conversation (all branches, each with its timeline when kept). */
export const ExportedMessageSchema = z.object({
  messageId: idSchema,
  parentId: idSchema.nullable(),
  role: ChatMessageSchema.shape.role,
  content: wellFormedText().max(INPUT_LIMITS.maxMessageChars),
  createdWallMs: z.number(),
  requestId: z.string().max(200).nullable(),
  finishReason: AnswerFinishSchema.nullable(),
  meta: MessageMetaSchema,
  timeline: TimelineSchema.nullable(),
});

/** A conversation as exported to JSON: everything needed to import it elsewhere, timelines included. */
export const ConversationExportSchema = z.object({
  format: z.literal(CONVERSATION_EXPORT_FORMAT),
  exportedWallMs: z.number(),
  title: wellFormedText().max(200),
  createdWallMs: z.number(),
  settings: ConversationSettingsSchema,
  leafMessageId: idSchema.nullable(),
  messages: z.array(ExportedMessageSchema).max(INPUT_LIMITS.maxImportedMessages),
});
export type ConversationExport = z.infer<typeof ConversationExportSchema>;
