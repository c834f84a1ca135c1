import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SlotEventRecord } from '../../../src-main/store';
import { openSqliteStore } from '../../../src-main/store';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();

describe('chat history', () => {
  it('keeps conversations and their messages, newest conversation first', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const older = store.chats.createConversation({ title: 'older', atWallMs: 10 });
    const newer = store.chats.createConversation({ title: 'newer', atWallMs: 20 });
    store.chats.addMessage({
      conversationId: older.conversationId,
      role: 'user',
      content: 'hi',
      atWallMs: 30,
    });
    expect(store.chats.listConversations().map((c) => [c.title, c.numMessages, c.updatedWallMs])).toEqual([
      ['older', 1, 30],
      ['newer', 0, 20],
    ]);
    expect(store.chats.renameConversation(newer.conversationId, 'renamed')).toBe(true);
    expect(store.chats.getConversation(newer.conversationId)?.title).toBe('renamed');
    store.close();
  });

  it('links an assistant message to its timeline once the timeline is stored', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const { conversationId } = store.chats.createConversation({ title: 't' });
    const t = timeline({ parts: { prefill: 9 } });
    store.chats.addMessage({ conversationId, role: 'user', content: 'q', atWallMs: 1 });
    store.chats.addMessage({
      conversationId,
      role: 'assistant',
      content: 'a',
      requestId: t.requestId,
      atWallMs: 2,
    });
    store.writer.enqueue(t);
    expect(store.chats.messages(conversationId)[1]!.timeline).toBeNull();
    store.writer.flush();
    const messages = store.chats.messages(conversationId);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.timeline).toEqual(t);
    store.close();
  });

  it('deletes a conversation with its messages but keeps the timelines (telemetry)', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const { conversationId } = store.chats.createConversation({ title: 't' });
    const t = timeline();
    store.chats.addMessage({ conversationId, role: 'assistant', content: 'a', requestId: t.requestId });
    store.writer.enqueue(t);
    store.writer.flush();
    expect(store.chats.deleteConversation(conversationId)).toBe(true);
    expect(store.chats.messages(conversationId)).toEqual([]);
    expect(store.timelines.count({})).toBe(1);
    store.close();
  });

  it('refuses a message for a conversation that does not exist (foreign keys are on)', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    expect(() => store.chats.addMessage({ conversationId: 'nope', role: 'user', content: 'x' })).toThrow(
      /FOREIGN KEY/,
    );
    store.close();
  });
});

describe('slot events', () => {
  const event = (atWallMs: number, cause: SlotEventRecord['cause'] = 'request'): SlotEventRecord => ({
    slotId: 's1',
    modelId: 'tiny',
    fromStatus: 'resident',
    toStatus: 'active',
    cause,
    reason: null,
    atWallMs,
  });

  it('are stored through the writer and read back by wall-clock range, oldest first', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    for (const at of [30, 10, 20, 40])
      store.writer.enqueueSlotEvent(event(at, at === 40 ? 'ttl' : 'request'));
    store.writer.flush();
    expect(store.slotEvents.between(10, 40).map((e) => e.atWallMs)).toEqual([10, 20, 30]);
    expect(store.slotEvents.between(0, 100, 2)).toHaveLength(2);
    expect(store.slotEvents.between(40, 41)[0]).toEqual(event(40, 'ttl'));
    store.close();
  });

  it('reject a cause outside the fixed vocabulary (and count it, not crash)', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    store.writer.enqueueSlotEvent({ ...event(1), cause: 'whim' as SlotEventRecord['cause'] });
    store.writer.flush();
    expect(store.writer.stats.numFailed).toBe(1);
    expect(store.slotEvents.between(0, 10)).toEqual([]);
    store.close();
  });
});
