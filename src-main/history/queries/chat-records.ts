import { randomUUID } from 'node:crypto';
import type { RecordedFinishReason, Timeline } from '../../telemetry/timeline/schema';

/**
 * A conversation as the chat sidebar lists it; times are wall-clock epoch ms. `leafMessageId`
 * is the last message of the branch on screen (null: empty). `settings` is the JSON the
 * service stored; the service validates it when it reads it (the store does not know its shape).
 */
export interface ConversationRecord {
  conversationId: string;
  title: string;
  createdWallMs: number;
  updatedWallMs: number;
  numMessages: number;
  leafMessageId: string | null;
  settings: unknown;
}

/** Who wrote a message. */
export type MessageRole = 'system' | 'user' | 'assistant';

/**
 * A stored message, a node of its conversation's tree: `parentId` is the message it follows
 * (null: the first turn); siblings under one parent are versions of that turn. `requestId` is
 * a soft link to the timeline of the request that produced it: the timeline arrives later
 * through the batched writer and may be pruned by retention, so `timeline` is null until (and
 * unless) it is stored; `finishReason` stays with the message either way.
 */
export interface MessageRecord {
  messageId: string;
  parentId: string | null;
  role: MessageRole;
  content: string;
  createdWallMs: number;
  requestId: string | null;
  finishReason: RecordedFinishReason | null;
  /** JSON the service stored with the message (its forecast, messages left out); validated there. */
  meta: unknown;
  timeline: Timeline | null;
}

/** What creating a conversation takes; id, time and settings default to a new UUID, now and {}. */
export interface NewConversation {
  title: string;
  conversationId?: string;
  atWallMs?: number;
  settings?: unknown;
  /** The branch on screen (import); a new conversation has none. */
  leafMessageId?: string | null;
}

/** What adding a message takes; the id and time default to a new UUID and now. */
export interface NewMessage {
  conversationId: string;
  parentId?: string | null;
  role: MessageRole;
  content: string;
  requestId?: string | null;
  finishReason?: RecordedFinishReason | null;
  meta?: unknown;
  messageId?: string;
  atWallMs?: number;
}

/** What rewriting an answer changes: its text, its ending and the service's JSON. */
export type AnswerPatch = Pick<MessageRecord, 'content' | 'finishReason' | 'meta'>;

/** A conversation found by a search, with the first matching message text (null: the title matched). */
export interface SearchHit {
  conversation: ConversationRecord;
  snippet: string | null;
}

/** The record a new conversation will have, defaults filled in (shared with the null store). */
export function conversationRecord(input: NewConversation): ConversationRecord {
  const atWallMs = input.atWallMs ?? Date.now();
  return {
    conversationId: input.conversationId ?? randomUUID(),
    title: input.title,
    createdWallMs: atWallMs,
    updatedWallMs: atWallMs,
    numMessages: 0,
    leafMessageId: input.leafMessageId ?? null,
    settings: input.settings ?? {},
  };
}

/** The record a new message will have, defaults filled in (shared with the null store). */
export function messageRecord(input: NewMessage): MessageRecord {
  return {
    messageId: input.messageId ?? randomUUID(),
    parentId: input.parentId ?? null,
    role: input.role,
    content: input.content,
    createdWallMs: input.atWallMs ?? Date.now(),
    requestId: input.requestId ?? null,
    finishReason: input.finishReason ?? null,
    meta: input.meta ?? {},
    timeline: null,
  };
}

/** Up to `radius` characters either side of the first case-insensitive match of `query`. */
export function snippetOf(text: string, query: string, radius = 40): string | null {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (at < 0) return null;
  const from = Math.max(0, at - radius);
  const to = Math.min(text.length, at + query.length + radius);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}

/**
 * Chat history. Writes are synchronous: a message is the user's data, not telemetry.
 * Conversations are trees of messages; which branch is on screen is the conversation's leaf.
 */
export interface ChatQueries {
  createConversation(input: NewConversation): ConversationRecord;
  listConversations(): ConversationRecord[];
  getConversation(conversationId: string): ConversationRecord | null;
  renameConversation(conversationId: string, title: string): boolean;
  /** Replaces the conversation's settings JSON. */
  setSettings(conversationId: string, settings: unknown): boolean;
  /** Puts a branch on screen: `messageId` is its last message (null: nothing yet). */
  setLeaf(conversationId: string, messageId: string | null): boolean;
  /** Deletes the conversation and its messages (timelines stay: they are telemetry). */
  deleteConversation(conversationId: string): boolean;
  /** Conversations whose title or any message contains `query` (case-insensitive), newest first. */
  search(query: string, limit: number): SearchHit[];
  addMessage(input: NewMessage): MessageRecord;
  /** Rewrites a stored answer (a streaming answer's checkpoint, then its end); false when it is gone. */
  updateAnswer(messageId: string, patch: AnswerPatch): boolean;
  /** Every message of the conversation (all branches), oldest first, each with its timeline when stored. */
  messages(conversationId: string): MessageRecord[];
  /** Stores a whole conversation at once (import): all of it or, on any error, nothing. */
  importConversation(conversation: NewConversation, messages: readonly NewMessage[]): ConversationRecord;
  /** An app-wide setting's JSON value, or null when unset. */
  getSetting(key: string): unknown;
  putSetting(key: string, value: unknown): void;
}
