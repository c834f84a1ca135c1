import type Database from 'better-sqlite3';
import type { Log } from '../../telemetry/log/log';
import type { RecordedFinishReason } from '../../telemetry/timeline/schema';
import type { TimelineQueries } from './timelines';
import type {
  ChatQueries,
  ConversationRecord,
  MessageRecord,
  MessageRole,
  NewConversation,
  NewMessage,
} from './chat-records';
import { conversationRecord, messageRecord, snippetOf } from './chat-records';

const SELECT_CONVERSATIONS = `SELECT c.id, c.title, c.created_at_wall_ms, c.updated_at_wall_ms,
  c.leaf_message_id, c.settings_json,
  (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS num_messages FROM conversations c`;

interface ConversationRow {
  id: string;
  title: string;
  created_at_wall_ms: number;
  updated_at_wall_ms: number;
  leaf_message_id: string | null;
  settings_json: string;
  num_messages: number;
}

interface MessageRow {
  id: string;
  parent_id: string | null;
  role: MessageRole;
  content: string;
  created_at_wall_ms: number;
  request_id: string | null;
  finish_reason: RecordedFinishReason | null;
  meta_json: string;
}

/** ChatQueries over an open history database; `log` hears of stored JSON that no longer parses. */
export function chatQueries(db: Database.Database, timelines: TimelineQueries, log: Log): ChatQueries {
  const readJson = jsonReader(log);
  const conversations = conversationQueries(db, readJson);
  const messages = messageQueries(db, timelines, readJson);
  const settings = settingQueries(db, readJson);
  const importAll = db.transaction((conversation: NewConversation, list: readonly NewMessage[]) => {
    const { leafMessageId, ...rest } = conversation;
    const record = conversations.createConversation(rest);
    for (const m of list) messages.addMessage({ ...m, conversationId: record.conversationId });
    conversations.setLeaf(record.conversationId, leafMessageId ?? null);
    return conversations.getConversation(record.conversationId)!;
  });
  return {
    ...conversations,
    ...messages,
    ...settings,
    importConversation: (conversation, list) => importAll(conversation, list),
  };
}

type ConversationPart = Pick<
  ChatQueries,
  | 'createConversation'
  | 'listConversations'
  | 'getConversation'
  | 'renameConversation'
  | 'setSettings'
  | 'setLeaf'
  | 'deleteConversation'
  | 'search'
>;

function conversationQueries(db: Database.Database, readJson: ReadJson): ConversationPart {
  const insert = db.prepare(
    'INSERT INTO conversations (id, title, created_at_wall_ms, updated_at_wall_ms, settings_json) VALUES (?, ?, ?, ?, ?)',
  );
  const list = db.prepare(`${SELECT_CONVERSATIONS} ORDER BY c.updated_at_wall_ms DESC`);
  const get = db.prepare(`${SELECT_CONVERSATIONS} WHERE c.id = ?`);
  const rename = db.prepare('UPDATE conversations SET title = ? WHERE id = ?');
  const setSettings = db.prepare('UPDATE conversations SET settings_json = ? WHERE id = ?');
  const setLeaf = db.prepare('UPDATE conversations SET leaf_message_id = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM conversations WHERE id = ?');
  // LIKE with an escape character: the user's % and _ are literal.
  const search = db.prepare(
    `${SELECT_CONVERSATIONS} WHERE c.title LIKE @pattern ESCAPE '\\'
       OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.content LIKE @pattern ESCAPE '\\')
     ORDER BY c.updated_at_wall_ms DESC LIMIT @limit`,
  );
  const firstMatch = db.prepare(
    `SELECT content FROM messages WHERE conversation_id = ? AND content LIKE ? ESCAPE '\\'
     ORDER BY created_at_wall_ms, rowid LIMIT 1`,
  );
  return {
    createConversation: (input) => {
      const record = conversationRecord(input);
      insert.run(
        record.conversationId,
        record.title,
        record.createdWallMs,
        record.updatedWallMs,
        JSON.stringify(record.settings),
      );
      return record;
    },
    listConversations: () => (list.all() as ConversationRow[]).map((row) => toConversation(row, readJson)),
    getConversation: (id) => {
      const row = get.get(id) as ConversationRow | undefined;
      return row ? toConversation(row, readJson) : null;
    },
    renameConversation: (id, title) => rename.run(title, id).changes > 0,
    setSettings: (id, settings) => setSettings.run(JSON.stringify(settings), id).changes > 0,
    setLeaf: (id, messageId) => setLeaf.run(messageId, id).changes > 0,
    deleteConversation: (id) => remove.run(id).changes > 0,
    search: (query, limit) => {
      const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return (search.all({ pattern, limit }) as ConversationRow[]).map((row) => {
        const isTitleHit = row.title.toLowerCase().includes(query.toLowerCase());
        const match = isTitleHit ? undefined : (firstMatch.get(row.id, pattern) as { content: string });
        return {
          conversation: toConversation(row, readJson),
          snippet: match ? snippetOf(match.content, query) : null,
        };
      });
    },
  };
}

function messageQueries(
  db: Database.Database,
  timelines: TimelineQueries,
  readJson: ReadJson,
): Pick<ChatQueries, 'addMessage' | 'updateAnswer' | 'messages'> {
  const insert = db.prepare(
    `INSERT INTO messages (id, conversation_id, parent_id, role, content, request_id, finish_reason, meta_json, created_at_wall_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare('UPDATE messages SET content = ?, finish_reason = ?, meta_json = ? WHERE id = ?');
  const touch = db.prepare(
    'UPDATE conversations SET updated_at_wall_ms = max(updated_at_wall_ms, ?) WHERE id = ?',
  );
  const list = db.prepare(
    `SELECT id, parent_id, role, content, created_at_wall_ms, request_id, finish_reason, meta_json
     FROM messages WHERE conversation_id = ? ORDER BY created_at_wall_ms, rowid`,
  );
  const add = db.transaction((m: MessageRecord, conversationId: string) => {
    insert.run(
      m.messageId,
      conversationId,
      m.parentId,
      m.role,
      m.content,
      m.requestId,
      m.finishReason,
      JSON.stringify(m.meta),
      m.createdWallMs,
    );
    touch.run(m.createdWallMs, conversationId);
  });
  return {
    addMessage: (input) => {
      const message = messageRecord(input);
      add(message, input.conversationId);
      return message;
    },
    updateAnswer: (messageId, patch) =>
      update.run(patch.content, patch.finishReason, JSON.stringify(patch.meta), messageId).changes > 0,
    messages: (conversationId) => {
      const rows = list.all(conversationId) as MessageRow[];
      const linked = timelines.byRequestIds(rows.flatMap((r) => (r.request_id ? [r.request_id] : [])));
      return rows.map((r) => ({
        messageId: r.id,
        parentId: r.parent_id,
        role: r.role,
        content: r.content,
        createdWallMs: r.created_at_wall_ms,
        requestId: r.request_id,
        finishReason: r.finish_reason,
        meta: readJson(r.meta_json, `message ${r.id}'s meta`),
        timeline: r.request_id ? (linked.get(r.request_id) ?? null) : null,
      }));
    },
  };
}

function settingQueries(
  db: Database.Database,
  readJson: ReadJson,
): Pick<ChatQueries, 'getSetting' | 'putSetting'> {
  const get = db.prepare('SELECT value_json FROM settings WHERE key = ?');
  const put = db.prepare(
    'INSERT INTO settings (key, value_json) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json',
  );
  return {
    getSetting: (key) => {
      const row = get.get(key) as { value_json: string } | undefined;
      return row ? readJson(row.value_json, `setting ${key}`) : null;
    },
    putSetting: (key, value) => void put.run(key, JSON.stringify(value)),
  };
}

/** Reads a stored JSON column; `what` names the row for the log. */
type ReadJson = (text: string, what: string) => unknown;

/**
 * Stored JSON, or {} when a row no longer parses (edited by hand, damaged): the reader's
 * defaults then apply, and the log says which row and why, so the loss is never silent. The
 * row itself is kept as it is until the next save overwrites it.
 */
function jsonReader(log: Log): ReadJson {
  return (text, what) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      log.warn(
        'store',
        `${what} is not JSON (${(error as Error).message}); its defaults apply until it is saved again`,
      );
      return {};
    }
  };
}

function toConversation(row: ConversationRow, readJson: ReadJson): ConversationRecord {
  return {
    conversationId: row.id,
    title: row.title,
    createdWallMs: row.created_at_wall_ms,
    updatedWallMs: row.updated_at_wall_ms,
    numMessages: row.num_messages,
    leafMessageId: row.leaf_message_id,
    settings: readJson(row.settings_json, `conversation ${row.id}'s settings`),
  };
}
