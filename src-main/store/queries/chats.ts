import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Timeline } from '../../telemetry/timeline';
import type { TimelineQueries } from './timelines';

/** A conversation as the chat sidebar lists it; times are wall-clock epoch ms. */
export interface ConversationRecord {
  conversationId: string;
  title: string;
  createdWallMs: number;
  updatedWallMs: number;
  numMessages: number;
}

/** Who wrote a message. */
export type MessageRole = 'system' | 'user' | 'assistant';

/**
 * A stored message. `requestId` is a soft link to the timeline of the request that produced
 * it: the timeline arrives later through the batched writer and may be pruned by retention,
 * so `timeline` is null until (and unless) it is stored.
 */
export interface MessageRecord {
  messageId: string;
  role: MessageRole;
  content: string;
  createdWallMs: number;
  requestId: string | null;
  timeline: Timeline | null;
}

/** What creating a conversation takes; the id and time default to a new UUID and now. */
export interface NewConversation {
  title: string;
  conversationId?: string;
  atWallMs?: number;
}

/** What adding a message takes; the id and time default to a new UUID and now. */
export interface NewMessage {
  conversationId: string;
  role: MessageRole;
  content: string;
  requestId?: string | null;
  messageId?: string;
  atWallMs?: number;
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
  };
}

/** The record a new message will have, defaults filled in (shared with the null store). */
export function messageRecord(input: NewMessage): MessageRecord {
  return {
    messageId: input.messageId ?? randomUUID(),
    role: input.role,
    content: input.content,
    createdWallMs: input.atWallMs ?? Date.now(),
    requestId: input.requestId ?? null,
    timeline: null,
  };
}

/** Chat history. Writes are synchronous: a message is the user's data, not telemetry. */
export interface ChatQueries {
  createConversation(input: NewConversation): ConversationRecord;
  listConversations(): ConversationRecord[];
  getConversation(conversationId: string): ConversationRecord | null;
  renameConversation(conversationId: string, title: string): boolean;
  /** Deletes the conversation and its messages (timelines stay: they are telemetry). */
  deleteConversation(conversationId: string): boolean;
  addMessage(input: NewMessage): MessageRecord;
  /** The conversation's messages, oldest first, each with its timeline when stored. */
  messages(conversationId: string): MessageRecord[];
}

const SELECT_CONVERSATIONS = `SELECT c.id, c.title, c.created_at_wall_ms, c.updated_at_wall_ms,
  (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS num_messages FROM conversations c`;

interface ConversationRow {
  id: string;
  title: string;
  created_at_wall_ms: number;
  updated_at_wall_ms: number;
  num_messages: number;
}

interface MessageRow {
  id: string;
  role: MessageRole;
  content: string;
  created_at_wall_ms: number;
  request_id: string | null;
}

/** ChatQueries over an open history database. */
export function chatQueries(db: Database.Database, timelines: TimelineQueries): ChatQueries {
  return { ...conversationQueries(db), ...messageQueries(db, timelines) };
}

type ConversationPart = Omit<ChatQueries, 'addMessage' | 'messages'>;

function conversationQueries(db: Database.Database): ConversationPart {
  const insert = db.prepare(
    'INSERT INTO conversations (id, title, created_at_wall_ms, updated_at_wall_ms) VALUES (?, ?, ?, ?)',
  );
  const list = db.prepare(`${SELECT_CONVERSATIONS} ORDER BY c.updated_at_wall_ms DESC`);
  const get = db.prepare(`${SELECT_CONVERSATIONS} WHERE c.id = ?`);
  const rename = db.prepare('UPDATE conversations SET title = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM conversations WHERE id = ?');
  return {
    createConversation: (input) => {
      const record = conversationRecord(input);
      insert.run(record.conversationId, record.title, record.createdWallMs, record.updatedWallMs);
      return record;
    },
    listConversations: () => (list.all() as ConversationRow[]).map(toConversation),
    getConversation: (id) => {
      const row = get.get(id) as ConversationRow | undefined;
      return row ? toConversation(row) : null;
    },
    renameConversation: (id, title) => rename.run(title, id).changes > 0,
    deleteConversation: (id) => remove.run(id).changes > 0,
  };
}

function messageQueries(
  db: Database.Database,
  timelines: TimelineQueries,
): Pick<ChatQueries, 'addMessage' | 'messages'> {
  const insert = db.prepare(
    'INSERT INTO messages (id, conversation_id, role, content, request_id, created_at_wall_ms) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const touch = db.prepare(
    'UPDATE conversations SET updated_at_wall_ms = max(updated_at_wall_ms, ?) WHERE id = ?',
  );
  const list = db.prepare(
    'SELECT id, role, content, created_at_wall_ms, request_id FROM messages WHERE conversation_id = ? ORDER BY created_at_wall_ms, rowid',
  );
  const add = db.transaction((m: MessageRecord, conversationId: string) => {
    insert.run(m.messageId, conversationId, m.role, m.content, m.requestId, m.createdWallMs);
    touch.run(m.createdWallMs, conversationId);
  });
  return {
    addMessage: (input) => {
      const message = messageRecord(input);
      add(message, input.conversationId);
      return message;
    },
    messages: (conversationId) => {
      const rows = list.all(conversationId) as MessageRow[];
      const linked = timelines.byRequestIds(rows.flatMap((r) => (r.request_id ? [r.request_id] : [])));
      return rows.map((r) => ({
        messageId: r.id,
        role: r.role,
        content: r.content,
        createdWallMs: r.created_at_wall_ms,
        requestId: r.request_id,
        timeline: r.request_id ? (linked.get(r.request_id) ?? null) : null,
      }));
    },
  };
}

function toConversation(row: ConversationRow): ConversationRecord {
  return {
    conversationId: row.id,
    title: row.title,
    createdWallMs: row.created_at_wall_ms,
    updatedWallMs: row.updated_at_wall_ms,
    numMessages: row.num_messages,
  };
}
