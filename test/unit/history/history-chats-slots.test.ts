import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src-main/history/migrations';
import type { SlotEventRecord } from '../../../src-main/telemetry/residency/schema';
import { openSqliteHistory } from '../../../src-main/history/history';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();

describe('chat history', () => {
  it('keeps conversations and their messages, newest conversation first', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const older = history.chats.createConversation({ title: 'older', atWallMs: 10 });
    const newer = history.chats.createConversation({ title: 'newer', atWallMs: 20 });
    history.chats.addMessage({
      conversationId: older.conversationId,
      role: 'user',
      content: 'hi',
      atWallMs: 30,
    });
    expect(history.chats.listConversations().map((c) => [c.title, c.numMessages, c.updatedWallMs])).toEqual([
      ['older', 1, 30],
      ['newer', 0, 20],
    ]);
    expect(history.chats.renameConversation(newer.conversationId, 'renamed')).toBe(true);
    expect(history.chats.getConversation(newer.conversationId)?.title).toBe('renamed');
    history.close();
  });

  it('reads a settings row that no longer parses as defaults, and tells the log which row and why', () => {
    const path = join(tempDir(), 'h.db');
    const logged: string[] = [];
    const history = openSqliteHistory(path, {
      log: { warn: (topic, message) => void logged.push(`[${topic}] ${message}`) },
    });
    const { conversationId } = history.chats.createConversation({
      title: 't',
      settings: { systemPrompt: 'Be brief.' },
    });
    const raw = new Database(path);
    raw
      .prepare('UPDATE conversations SET settings_json = ? WHERE id = ?')
      .run('{"systemPrompt": "Be br', conversationId);
    raw.close();
    expect(history.chats.getConversation(conversationId)?.settings).toEqual({});
    expect(logged).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[store\\] conversation ${conversationId}'s settings is not JSON \\(.+\\); its defaults apply until it is saved again$`,
        ),
      ),
    ]);
    history.close();
  });

  it('links an assistant message to its timeline once the timeline is stored', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const { conversationId } = history.chats.createConversation({ title: 't' });
    const t = timeline({ parts: { prefill: 9 } });
    history.chats.addMessage({ conversationId, role: 'user', content: 'q', atWallMs: 1 });
    history.chats.addMessage({
      conversationId,
      role: 'assistant',
      content: 'a',
      requestId: t.requestId,
      atWallMs: 2,
    });
    history.writer.enqueue(t);
    expect(history.chats.messages(conversationId)[1]!.timeline).toBeNull();
    history.writer.flush();
    const messages = history.chats.messages(conversationId);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.timeline).toEqual(t);
    history.close();
  });

  it('deletes a conversation with its messages but keeps the timelines (telemetry)', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const { conversationId } = history.chats.createConversation({ title: 't' });
    const t = timeline();
    history.chats.addMessage({ conversationId, role: 'assistant', content: 'a', requestId: t.requestId });
    history.writer.enqueue(t);
    history.writer.flush();
    expect(history.chats.deleteConversation(conversationId)).toBe(true);
    expect(history.chats.messages(conversationId)).toEqual([]);
    expect(history.timelines.count({})).toBe(1);
    history.close();
  });

  it('refuses a message for a conversation that does not exist (foreign keys are on)', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    expect(() => history.chats.addMessage({ conversationId: 'nope', role: 'user', content: 'x' })).toThrow(
      /FOREIGN KEY/,
    );
    history.close();
  });
});

describe('conversation trees in the store', () => {
  it('migrating a v1 history makes each conversation one branch, oldest message first', () => {
    const path = join(tempDir(), 'v1.db');
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0] as string);
    raw.pragma('user_version = 1');
    raw.prepare("INSERT INTO conversations VALUES ('c', 'old chat', 1, 3)").run();
    const insert = raw.prepare(
      "INSERT INTO messages (id, conversation_id, role, content, created_at_wall_ms) VALUES (?, 'c', ?, ?, ?)",
    );
    insert.run('m1', 'user', 'q', 1);
    insert.run('m2', 'assistant', 'a', 2);
    insert.run('m3', 'user', 'q2', 2);
    raw.close();
    const history = openSqliteHistory(path);
    expect(history.chats.messages('c').map((m) => [m.messageId, m.parentId])).toEqual([
      ['m1', null],
      ['m2', 'm1'],
      ['m3', 'm2'],
    ]);
    expect(history.chats.getConversation('c')).toMatchObject({ leafMessageId: 'm3', settings: {} });
    history.close();
  });

  it('keeps parents, finish reasons, meta, the leaf and settings; imports all or nothing', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const { conversationId } = history.chats.createConversation({
      title: 't',
      settings: { systemPrompt: 'x' },
    });
    const q = history.chats.addMessage({ conversationId, role: 'user', content: 'q' });
    const a = history.chats.addMessage({
      conversationId,
      parentId: q.messageId,
      role: 'assistant',
      content: 'a',
      finishReason: 'stop',
      meta: { numDroppedMessages: 2 },
    });
    history.chats.setLeaf(conversationId, a.messageId);
    const stored = history.chats.messages(conversationId)[1]!;
    expect(stored).toMatchObject({
      parentId: q.messageId,
      finishReason: 'stop',
      meta: { numDroppedMessages: 2 },
    });
    expect(history.chats.getConversation(conversationId)).toMatchObject({
      leafMessageId: a.messageId,
      settings: { systemPrompt: 'x' },
    });
    const before = history.chats.listConversations().length;
    expect(() =>
      history.chats.importConversation({ title: 'broken' }, [
        { conversationId: '', messageId: 'dup', role: 'user', content: 'a' },
        { conversationId: '', messageId: 'dup', role: 'user', content: 'b' },
      ]),
    ).toThrow(/UNIQUE/);
    expect(history.chats.listConversations()).toHaveLength(before);
    history.close();
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
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    for (const at of [30, 10, 20, 40])
      history.writer.enqueueSlotEvent(event(at, at === 40 ? 'ttl' : 'request'));
    history.writer.flush();
    expect(history.slotEvents.between(10, 40).map((e) => e.atWallMs)).toEqual([10, 20, 30]);
    expect(history.slotEvents.between(0, 100, 2)).toHaveLength(2);
    expect(history.slotEvents.between(40, 41)[0]).toEqual(event(40, 'ttl'));
    history.close();
  });

  it('reject a cause outside the fixed vocabulary (and count it, not crash)', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    history.writer.enqueueSlotEvent({ ...event(1), cause: 'whim' as SlotEventRecord['cause'] });
    history.writer.flush();
    expect(history.writer.stats.numFailed).toBe(1);
    expect(history.slotEvents.between(0, 10)).toEqual([]);
    history.close();
  });
});
