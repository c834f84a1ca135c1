import { z } from 'zod';
import { wellFormedText } from './text';
import { INPUT_LIMITS } from '../../limits';
import { EXPORT_FORMATS } from '../../telemetry/trace/export-formats';
import {
  ChatMessageSchema,
  EngineStatsSchema,
  KeepAliveSchema,
  ModelEntrySchema,
  PageStatsSchema,
  ProblemSchema,
  SamplingSchema,
  SlotEventSchema,
  SlotSnapshotSchema,
  TimelineSchema,
} from './schemas';
import { ReportSchema, RunComparisonSchema, RunSummarySchema, SloSchema } from './report-schemas';
import { QualityResultSchema } from './quality-schemas';
import { ClearedConversionsSchema, ConversionCacheSchema, DiscoveryStateSchema } from './model-schemas';
import {
  HubDownloadSchema,
  HubFilePathSchema,
  HubRefSchema,
  HubRepoSchema,
  HubRevisionSchema,
  ModelRemovalSchema,
} from './hub-schemas';
import { AddEndpointSchema, EndpointSnapshotSchema } from './endpoint-schemas';
import {
  ChatDefaultsSchema,
  ConversationSettingsSchema,
  ConversationSummarySchema,
  ConversationViewSchema,
  SamplingPresetSchema,
  SendForecastSchema,
  TurnStartedSchema,
} from './chat-schemas';
import { AppliedSettingsSchema, SettingsStateSchema } from './settings-schemas';
import { UiPreferencesSchema } from './ui-schemas';
import { MAX_DEADLINE_MS, SETTING_KEYS } from '../../runtime/settings/declaration';
import type { SettingKey } from '../../runtime/settings/declaration';

const idSchema = z.string().min(1).max(200);
/**
 * The id a turn's request will carry, chosen by the client (a UUID) so that it can match the
 * request's events from the first one: over SSE they may arrive before the method's reply.
 * Absent: the service chooses. One already in flight is refused before anything is stored.
 */
const turnRequestIdSchema = z.uuid().optional();
const empty = z.object({}).strict();

/**
 * What the app is running on and whether history is being kept: `on`, `off` (with the reason),
 * or degraded — `busy` (another process holds the lock) or `full` (no room on disk) — while
 * writes wait in memory and are retried; `persistenceReason` then reads `degraded: busy: …`.
 */
export const AppStatusSchema = z.object({
  version: z.string(),
  isPersistent: z.boolean(),
  historyState: z.enum(['on', 'busy', 'full', 'damaged', 'off']),
  persistenceReason: z.string().nullable(),
  dataDir: z.string(),
  /** The folder the user drops model folders into (absolute path). */
  modelsDir: z.string(),
  /** The model formats this build loads, in words ("Hugging Face ONNX folder: …"). */
  modelFormats: z.array(z.object({ name: z.string(), detail: z.string() })),
  defaultModelId: z.string().nullable(),
  executionProvider: z.string(),
  host: z.enum(['electron', 'headless']),
  /** The log file problems are written to, and the latest of them (oldest first). */
  logPath: z.string(),
  recentProblems: z.array(ProblemSchema),
});

/**
 * The OpenAI-compatible API's state: where it listens (or would listen once turned on: `port`),
 * whether a key guards it, whether this host lets the user switch it.
 */
export const ApiStatusSchema = z.object({
  isEnabled: z.boolean(),
  isToggleable: z.boolean(),
  baseUrl: z.string().nullable(),
  port: z.number().int().min(0).max(65_535).nullable(),
  hasApiKey: z.boolean(),
  note: z.string().nullable(),
});
export type ApiStatus = z.infer<typeof ApiStatusSchema>;

/** Rejected trace lines: 1-based line number and why. */
export const RejectedLineSchema = z.object({ line: z.number().int().min(1), reason: z.string() });

/**
 * What a trace import did: lines read, timelines imported (filed under `runId` when history
 * is on), the first rejected lines with reasons (`numRejected` counts them all), the report.
 */
export const TraceImportResultSchema = z.object({
  numLines: z.number().int(),
  numImported: z.number().int(),
  rejected: z.array(RejectedLineSchema),
  numRejected: z.number().int(),
  report: ReportSchema.nullable(),
  runId: z.string().nullable(),
});
export type TraceImportResult = z.infer<typeof TraceImportResultSchema>;

const def = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O) => ({ input, output });

/**
 * Every call the renderer (or any client) can make, by name: input and output are zod schemas
 * validated on both sides of every transport. The IPC allowlist and the HTTP routes derive
 * from these keys; nothing else crosses.
 */
export const METHODS = {
  'app.status': def(empty, AppStatusSchema),
  /** Opens the models folder in the system's file manager (desktop); `unavailable` where the host cannot. */
  'app.openModelsFolder': def(empty, z.object({ path: z.string() })),
  'ui.preferences': def(empty, UiPreferencesSchema),
  'ui.setPreferences': def(UiPreferencesSchema.partial(), UiPreferencesSchema),
  'models.list': def(empty, z.array(ModelEntrySchema)),
  /** Whether models of Ollama, LM Studio and the Hugging Face cache are listed, and what each place held. */
  'models.discovery': def(empty, DiscoveryStateSchema),
  /** Turns that listing on or off (kept across restarts), rescans, and answers the new state. */
  'models.setDiscovery': def(z.object({ isEnabled: z.boolean() }), DiscoveryStateSchema),
  /** Measured quality of model variants (stored by `npm run bench -- quality`), newest per revision. */
  'models.quality': def(empty, z.array(QualityResultSchema)),
  /** The GGUF conversion cache's folders and bytes on disk. */
  'models.conversionCache': def(empty, ConversionCacheSchema),
  /** Removes the converted folders no loaded model reads (they convert again at their next load). */
  'models.clearConversionCache': def(empty, ClearedConversionsSchema),
  /** What deleting a model's files from disk would remove, or why it cannot be deleted now. */
  'models.removal': def(z.object({ modelId: idSchema }), ModelRemovalSchema),
  /** Deletes a models-folder model's files (and its GGUF conversion); refused while it is loaded or in use. */
  'models.delete': def(z.object({ modelId: idSchema }), ModelRemovalSchema),
  /** A Hugging Face repository (id or URL): the files of it that run here, their sizes, the free disk. */
  'hub.files': def(z.object({ repo: HubRefSchema }), HubRepoSchema),
  /** Starts downloading one choice of `hub.files` into the models folder; progress comes as `hub.download`. */
  'hub.download': def(
    z.object({ repo: HubRefSchema, revision: HubRevisionSchema, filePath: HubFilePathSchema }),
    HubDownloadSchema,
  ),
  /** Downloads of this session, newest last. */
  'hub.downloads': def(empty, z.array(HubDownloadSchema)),
  /** Stops a download and removes its `.part` files. */
  'hub.cancel': def(z.object({ downloadId: idSchema }), HubDownloadSchema),
  'slots.list': def(empty, z.array(SlotSnapshotSchema)),
  'slots.events': def(
    z.object({ sinceWallMs: z.number().optional(), limit: z.number().int().min(1).max(10_000).optional() }),
    z.array(SlotEventSchema),
  ),
  'slots.prefetch': def(z.object({ modelId: idSchema }), SlotSnapshotSchema),
  'slots.evict': def(z.object({ slotId: idSchema }), SlotSnapshotSchema),
  'slots.keep': def(z.object({ slotId: idSchema, keepAlive: KeepAliveSchema }), SlotSnapshotSchema),
  'pages.stats': def(empty, PageStatsSchema),
  /** Removes remembered context kept on disk (files and index rows): one model's, or all. */
  'pages.forget': def(
    z.object({ modelId: idSchema.optional() }).strict(),
    z.object({ numPages: z.number().int().min(0) }),
  ),
  /** Remote endpoints (their models are remote slots); `check` asks each one's /v1/models again. */
  'endpoints.list': def(empty, z.array(EndpointSnapshotSchema)),
  'endpoints.add': def(AddEndpointSchema, EndpointSnapshotSchema),
  'endpoints.remove': def(z.object({ endpointId: idSchema }), z.object({ isRemoved: z.boolean() })),
  'endpoints.check': def(z.object({ endpointId: idSchema.optional() }), z.array(EndpointSnapshotSchema)),
  'engine.stats': def(empty, EngineStatsSchema),
  'chat.listConversations': def(empty, z.array(ConversationSummarySchema)),
  'chat.getConversation': def(z.object({ conversationId: idSchema }), ConversationViewSchema),
  'chat.createConversation': def(
    z.object({
      title: wellFormedText().max(200).optional(),
      settings: ConversationSettingsSchema.optional(),
    }),
    ConversationSummarySchema,
  ),
  'chat.renameConversation': def(
    z.object({ conversationId: idSchema, title: wellFormedText(z.string().trim()).min(1).max(200) }),
    ConversationSummarySchema,
  ),
  'chat.deleteConversation': def(
    z.object({ conversationId: idSchema }),
    z.object({ isDeleted: z.boolean() }),
  ),
  'chat.search': def(
    z.object({
      query: wellFormedText(z.string().trim()).min(1).max(200),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    z.array(z.object({ conversation: ConversationSummarySchema, snippet: z.string().nullable() })),
  ),
  'chat.updateSettings': def(
    z.object({ conversationId: idSchema, settings: ConversationSettingsSchema }),
    ConversationSettingsSchema,
  ),
  'chat.defaults': def(empty, ChatDefaultsSchema),
  'chat.setDefaults': def(z.object({ settings: ConversationSettingsSchema }), ChatDefaultsSchema),
  'chat.savePreset': def(
    z.object({ name: SamplingPresetSchema.shape.name, sampling: SamplingSchema.nullable() }),
    ChatDefaultsSchema,
  ),
  'chat.forecast': def(
    z.object({
      conversationId: idSchema.nullable(),
      content: wellFormedText().max(INPUT_LIMITS.maxMessageChars),
      /** Settings of a chat not created yet (ignored when conversationId is set). */
      settings: ConversationSettingsSchema.optional(),
    }),
    SendForecastSchema,
  ),
  'chat.send': def(
    z.object({
      conversationId: idSchema,
      content: wellFormedText().min(1).max(INPUT_LIMITS.maxMessageChars),
      modelId: idSchema.optional(),
      sampling: SamplingSchema.optional(),
      /** Cut the answer this many ms after it arrives (finish reason `deadline`); default: the setting. */
      deadlineMs: z.number().int().min(1).max(MAX_DEADLINE_MS).optional(),
      requestId: turnRequestIdSchema,
    }),
    TurnStartedSchema,
  ),
  'chat.regenerate': def(
    z.object({ conversationId: idSchema, messageId: idSchema, requestId: turnRequestIdSchema }),
    TurnStartedSchema,
  ),
  'chat.edit': def(
    z.object({
      conversationId: idSchema,
      messageId: idSchema,
      content: wellFormedText().min(1).max(INPUT_LIMITS.maxMessageChars),
      requestId: turnRequestIdSchema,
    }),
    TurnStartedSchema,
  ),
  'chat.selectVersion': def(
    z.object({ conversationId: idSchema, messageId: idSchema }),
    ConversationViewSchema,
  ),
  'chat.export': def(
    z.object({ conversationId: idSchema, format: z.enum(['json', 'markdown']) }),
    z.object({ fileName: z.string(), text: z.string() }),
  ),
  'chat.import': def(
    z.object({
      fileName: z.string().max(INPUT_LIMITS.maxFileNameChars),
      text: z.string().max(INPUT_LIMITS.maxTraceTextChars),
    }),
    ConversationSummarySchema,
  ),
  'chat.cancel': def(z.object({ requestId: idSchema }), z.object({ wasRunning: z.boolean() })),
  'timelines.recent': def(z.object({ limit: z.number().int().min(1).max(10_000) }), z.array(TimelineSchema)),
  'timelines.reportClientTtft': def(
    z.object({
      requestId: idSchema,
      clientTtftMs: z.number().min(0).max(3_600_000),
      /** The client's send → its last chunk received (its own clock), when it has it. */
      clientE2eMs: z.number().min(0).max(3_600_000).optional(),
    }),
    // A refused figure says why (a client TTFT below the server's is a broken measurement).
    z.object({ isRecorded: z.boolean(), reason: z.string().optional() }),
  ),
  'report.live': def(z.object({ slo: SloSchema.optional() }), ReportSchema),
  'runs.list': def(empty, z.array(RunSummarySchema)),
  'runs.rename': def(
    z.object({ runId: idSchema, name: z.string().trim().min(1).max(200) }),
    RunSummarySchema,
  ),
  /** Deletes a stored run and its requests from the history (the rows are removed from SQLite). */
  'runs.delete': def(
    z.object({ runId: idSchema }),
    z.object({ isDeleted: z.boolean(), numRequests: z.number().int() }),
  ),
  'runs.compare': def(
    z.object({ runIds: z.array(idSchema).min(2).max(8), slo: SloSchema }),
    RunComparisonSchema,
  ),
  'runs.exportCsv': def(
    z.object({ runId: idSchema.nullable() }),
    z.object({ fileName: z.string(), csv: z.string(), numRows: z.number().int() }),
  ),
  /**
   * Streams an export of a run (null: the live window) into a file the user picks in the host's
   * save dialog (desktop app); `filePath` null means the user cancelled. Hosts without a dialog
   * answer `unavailable`: a browser downloads `GET /api/export.<format>?runId=…` instead.
   */
  'runs.saveExport': def(
    z.object({ runId: idSchema.nullable(), format: z.enum(EXPORT_FORMATS) }),
    z.object({ filePath: z.string().nullable(), numRows: z.number().int() }),
  ),
  'traces.import': def(
    z.object({
      fileName: wellFormedText().max(INPUT_LIMITS.maxFileNameChars),
      text: z.string().max(INPUT_LIMITS.maxTraceTextChars),
      skipBadLines: z.boolean(),
    }),
    TraceImportResultSchema,
  ),
  'settings.get': def(empty, SettingsStateSchema),
  /**
   * The patch is checked against SettingsPatchSchema by the handler, which words a refusal
   * per setting ("Answers at once per model takes a whole number from 1 to 64 requests").
   */
  'settings.apply': def(z.object({ patch: z.record(z.string(), z.unknown()) }), AppliedSettingsSchema),
  'api.status': def(empty, ApiStatusSchema),
  'api.setEnabled': def(
    z.object({
      isEnabled: z.boolean(),
      port: z.number().int().min(0).max(65_535).optional(),
      apiKey: z.string().min(8).max(200).nullable().optional(),
    }),
    ApiStatusSchema,
  ),
  'bench.start': def(
    z.object({
      kind: z.enum(['first-frame', 'load', 'experiment']),
      numRuns: z.number().int().min(1).max(100).optional(),
      numRequests: z.number().int().min(1).max(1_000).optional(),
      ratePerS: z.number().gt(0).max(100).optional(),
      /** Experiment: bursts of this many (without ratePerS). */
      burstSize: z.number().int().min(1).max(64).optional(),
      /** Experiment: the setting and its values, written as its flag reads them ("2", "off"…). */
      vary: z
        .object({
          setting: z.enum(SETTING_KEYS as [SettingKey, ...SettingKey[]]),
          values: z.array(z.string().trim().min(1).max(200)).min(2).max(8),
        })
        .optional(),
    }),
    z.object({ benchId: idSchema }),
  ),
} as const;

/** The name of a service method (a key of METHODS); IPC channels and `/api/call/<method>` use it. */
export type MethodName = keyof typeof METHODS;
/** The validated input of a method. */
export type MethodInput<M extends MethodName> = z.infer<(typeof METHODS)[M]['input']>;
/** The validated output of a method. */
export type MethodOutput<M extends MethodName> = z.infer<(typeof METHODS)[M]['output']>;

/** Every method name, the allowlist transports are built from. */
export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

export { ChatMessageSchema, EngineStatsSchema };
