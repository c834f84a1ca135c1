import { describe, expect, it } from 'vitest';
import type { ChatQueries } from '../../../src-main/history/queries/chat-records';
import { pendingChats } from '../../../src-main/history/pending-chats';
import { ManualFlushTimer } from './manual-flush-timer';
import { memoryChats } from '../../../src-main/service/chat-memory';

/** An in-memory chat history whose writes refuse with `refusal` while it is set (reads always work). */
function refusableChats() {
  const inner = memoryChats();
  const state = { refusal: null as null | 'SQLITE_BUSY' | 'SQLITE_FULL' };
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      if (state.refusal) throw Object.assign(new Error(`refused: ${state.refusal}`), { code: state.refusal });
      return fn(...args);
    };
  const db: ChatQueries = {
    ...inner,
    createConversation: guard(inner.createConversation),
    renameConversation: guard(inner.renameConversation),
    addMessage: guard(inner.addMessage),
    deleteConversation: guard(inner.deleteConversation),
  };
  return { db, inner, state };
}

describe('chat history while the database refuses writes', () => {
  it('answers every write at once, shows it in every read, and writes it in order once the lock goes', () => {
    const { db, inner, state } = refusableChats();
    const timer = new ManualFlushTimer();
    const chats = pendingChats(db, timer);
    const stored = chats.createConversation({ title: 'stored' });
    state.refusal = 'SQLITE_BUSY';
    const waiting = chats.createConversation({ title: 'New chat' });
    chats.addMessage({ conversationId: waiting.conversationId, role: 'user', content: 'Hello?' });
    chats.renameConversation(waiting.conversationId, 'Hello?');
    chats.addMessage({ conversationId: stored.conversationId, role: 'user', content: 'Still there?' });
    expect(chats.health).toMatchObject({ state: 'busy', numWaiting: 4 });
    expect(chats.getConversation(waiting.conversationId)).toMatchObject({ title: 'Hello?', numMessages: 1 });
    expect(chats.messages(stored.conversationId).map((m) => m.content)).toEqual(['Still there?']);
    expect(
      chats
        .listConversations()
        .map((c) => c.title)
        .sort(),
    ).toEqual(['Hello?', 'stored']);
    expect(inner.listConversations()).toHaveLength(1);
    timer.runOne(); // a retry while still refused: nothing written, nothing lost
    expect(chats.health.state).toBe('busy');
    expect(chats.numPending).toBe(4);
    state.refusal = null;
    timer.runAll();
    expect(chats.health).toEqual({ state: 'ok' });
    expect(chats.numPending).toBe(0);
    expect(inner.getConversation(waiting.conversationId)).toMatchObject({ title: 'Hello?', numMessages: 1 });
    expect(chats.messages(stored.conversationId).map((m) => m.content)).toEqual(['Still there?']);
    expect(chats.listConversations()).toHaveLength(2);
  });

  it('says "full" while the disk is full and keeps the chat in memory', () => {
    const { db, state } = refusableChats();
    const chats = pendingChats(db, new ManualFlushTimer());
    state.refusal = 'SQLITE_FULL';
    const conversation = chats.createConversation({ title: 't' });
    const message = chats.addMessage({
      conversationId: conversation.conversationId,
      role: 'user',
      content: 'x',
    });
    expect(chats.health).toMatchObject({ state: 'full', reason: expect.stringMatching(/disk .* is full/) });
    expect(chats.messages(conversation.conversationId)).toEqual([message]);
  });

  it('still throws for a write no retry can cure (an unknown conversation)', () => {
    const { db } = refusableChats();
    const chats = pendingChats(db, new ManualFlushTimer());
    expect(() => chats.addMessage({ conversationId: 'nope', role: 'user', content: 'x' })).toThrow(/nope/);
  });

  it('forgets the waiting writes of a conversation deleted before they were written', () => {
    const { db, inner, state } = refusableChats();
    const timer = new ManualFlushTimer();
    const chats = pendingChats(db, timer);
    state.refusal = 'SQLITE_BUSY';
    const conversation = chats.createConversation({ title: 't' });
    chats.addMessage({ conversationId: conversation.conversationId, role: 'user', content: 'x' });
    state.refusal = null;
    expect(chats.deleteConversation(conversation.conversationId)).toBe(true);
    timer.runAll();
    expect(inner.listConversations()).toEqual([]);
    expect(chats.numPending).toBe(0);
  });
});
