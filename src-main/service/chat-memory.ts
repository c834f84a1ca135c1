import type { ChatQueries, ConversationRecord, MessageRecord } from '../history/queries/chat-records';
import { conversationRecord, messageRecord, snippetOf } from '../history/queries/chat-records';

/**
 * Chat history in memory, used while the database is unavailable: the chat keeps working for
 * this session (the UI says history is off), and nothing is written anywhere.
 */
export function memoryChats(): ChatQueries {
  const conversations = new Map<string, ConversationRecord>();
  const messages = new Map<string, MessageRecord[]>();
  const settings = new Map<string, unknown>();
  const listOf = (id: string) => messages.get(id) ?? [];
  const copy = (record: ConversationRecord) => ({
    ...record,
    numMessages: listOf(record.conversationId).length,
  });
  const update = (id: string, change: (record: ConversationRecord) => void) => {
    const record = conversations.get(id);
    if (record) change(record);
    return record !== undefined;
  };
  const chats: ChatQueries = {
    createConversation: (input) => {
      const record = conversationRecord(input);
      conversations.set(record.conversationId, record);
      messages.set(record.conversationId, []);
      return copy(record);
    },
    listConversations: () =>
      [...conversations.values()].sort((a, b) => b.updatedWallMs - a.updatedWallMs).map(copy),
    getConversation: (id) => {
      const record = conversations.get(id);
      return record ? copy(record) : null;
    },
    renameConversation: (id, title) => update(id, (r) => (r.title = title)),
    setSettings: (id, value) => update(id, (r) => (r.settings = value)),
    setLeaf: (id, messageId) => update(id, (r) => (r.leafMessageId = messageId)),
    deleteConversation: (id) => messages.delete(id) && conversations.delete(id),
    search: (query, limit) =>
      chats
        .listConversations()
        .flatMap((conversation) => {
          if (conversation.title.toLowerCase().includes(query.toLowerCase()))
            return [{ conversation, snippet: null }];
          const hit = listOf(conversation.conversationId).find((m) => snippetOf(m.content, query) !== null);
          return hit ? [{ conversation, snippet: snippetOf(hit.content, query) }] : [];
        })
        .slice(0, limit),
    addMessage: (input) => {
      const record = conversations.get(input.conversationId);
      if (!record) throw new Error(`no conversation "${input.conversationId}"`);
      const message = messageRecord(input);
      listOf(input.conversationId).push(message);
      record.updatedWallMs = Math.max(record.updatedWallMs, message.createdWallMs);
      return { ...message };
    },
    updateAnswer: (messageId, patch) => {
      for (const list of messages.values()) {
        const message = list.find((m) => m.messageId === messageId);
        if (!message) continue;
        Object.assign(message, patch);
        return true;
      }
      return false;
    },
    messages: (id) => listOf(id).map((m) => ({ ...m })),
    importConversation: (conversation, list) => {
      const record = chats.createConversation({ ...conversation, leafMessageId: null });
      for (const m of list) chats.addMessage({ ...m, conversationId: record.conversationId });
      chats.setLeaf(record.conversationId, conversation.leafMessageId ?? null);
      return chats.getConversation(record.conversationId)!;
    },
    getSetting: (key) => settings.get(key) ?? null,
    putSetting: (key, value) => void settings.set(key, value),
  };
  return chats;
}
