export { createStore } from './create-store';
export type { CreateStoreOptions } from './create-store';
export { openSqliteStore } from './store';
export type { Store, HistoryWriter, SqliteStoreOptions } from './store';
export { nullStore } from './null-store';
export { StoreUnavailable, describeReason, isRetryableWriteError, writeProblemOf } from './errors';
export type { WriteProblem } from './errors';
export { describeHealth } from './health';
export type { HistoryHealth } from './health';
export { pendingChats } from './pending-chats';
export type { PendingChats } from './pending-chats';
export type { UnavailableReason } from './errors';
export { openDatabase, isIntact } from './open';
export type { OpenOptions } from './open';
export { SCHEMA_VERSION } from './migrations';
export type { SlotEventRecord } from '../telemetry/residency';
export type { TimelineFilter } from './queries/filter';
export type { TimelineQueries } from './queries/timelines';
export { DEFAULT_BATCH_ROWS } from './queries/timelines';
export { RunConfigSchema } from './queries/runs';
export type { RunConfig, RunRecord, RunMetrics, RunQueries } from './queries/runs';
export type {
  AnswerPatch,
  ChatQueries,
  ConversationRecord,
  MessageRecord,
  MessageRole,
  NewConversation,
  NewMessage,
  SearchHit,
} from './queries/chat-records';
export { conversationRecord, messageRecord, snippetOf } from './queries/chat-records';
export type { SlotEventQueries } from './queries/slot-events';
export type { PreferenceQueries } from './queries/preferences';
export { DEFAULT_RETENTION, RetentionPolicySchema } from './retention';
export type { RetentionPolicy, RetentionControl, PruneResult } from './retention';
export { BatchedWriter } from './writer/batched-writer';
export type { WriterOptions, WriterStats } from './writer/batched-writer';
export { eventLoopFlushTimer } from './writer/flush-timer';
export type { FlushTimer } from './writer/flush-timer';
export type { BatchSink, WriteBatch, ClientTtftUpdate } from './writer/batch';
export { sqliteSink } from './writer/sqlite-sink';
