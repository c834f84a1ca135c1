import { randomUUID } from 'node:crypto';
import type { ChatQueries, ConversationRecord, MessageRecord } from '../store';

/**
 * Chat history in memory, used while the database is unavailable: the chat keeps working for
 * this session (the UI says history is off), and nothing is written anywhere.
 */
export function memoryChats(): ChatQueries {
  const conversations = new Map<string, ConversationRecord>();
  const messages = new Map<string, MessageRecord[]>();
  const listOf = (id: string) => messages.get(id) ?? [];
  return {
    createConversation: ({ title, conversationId = randomUUID(), atWallMs = Date.now() }) => {
      const record = {
        conversationId,
        title,
        createdWallMs: atWallMs,
        updatedWallMs: atWallMs,
        numMessages: 0,
      };
      conversations.set(conversationId, record);
      messages.set(conversationId, []);
      return { ...record };
    },
    listConversations: () =>
      [...conversations.values()].sort((a, b) => b.updatedWallMs - a.updatedWallMs).map((c) => ({ ...c })),
    getConversation: (id) => {
      const record = conversations.get(id);
      return record ? { ...record } : null;
    },
    renameConversation: (id, title) => {
      const record = conversations.get(id);
      if (record) record.title = title;
      return record !== undefined;
    },
    deleteConversation: (id) => messages.delete(id) && conversations.delete(id),
    addMessage: ({
      conversationId,
      role,
      content,
      requestId = null,
      messageId = randomUUID(),
      atWallMs = Date.now(),
    }) => {
      const record = conversations.get(conversationId);
      if (!record) throw new Error(`no conversation "${conversationId}"`);
      const message = { messageId, role, content, createdWallMs: atWallMs, requestId, timeline: null };
      listOf(conversationId).push(message);
      record.numMessages += 1;
      record.updatedWallMs = atWallMs;
      return { ...message };
    },
    messages: (id) => listOf(id).map((m) => ({ ...m })),
  };
}
