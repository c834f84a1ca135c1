import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORE_LIMITS } from '../../../../src-main/limits';
import { answerKeeper } from '../../../../src-main/service/chat/answer-keeper';
import { conversationView } from '../../../../src-main/service/chat/view';
import { defaultSettings } from '../../../../src-main/service/chat/settings';
import type { ChatQueries } from '../../../../src-main/store/queries/chat-records';
import { openSqliteStore } from '../../../../src-main/store/store';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import { consoleLog } from '../../../../src-main/telemetry/log/log';
import { outcomeOf, TURN_META } from '../../../support/answer-turn';
import { useTempDirs } from '../../store/temp-dir';

const tempDir = useTempDirs();

/** A conversation with one question in `chats`; its ids. */
function askedIn(chats: ChatQueries) {
  const { conversationId } = chats.createConversation({ title: 'q' });
  const question = chats.addMessage({ conversationId, role: 'user', content: 'Hi?' });
  chats.setLeaf(conversationId, question.messageId);
  return { conversationId, userMessageId: question.messageId, leafAtStart: question.messageId };
}

/** The branch on screen after a reload: the history opened anew from its file. */
function reloaded(path: string, conversationId: string, isRunning = () => false) {
  const store = openSqliteStore(path);
  try {
    const record = store.chats.getConversation(conversationId)!;
    const settings = defaultSettings(store.chats);
    return conversationView(
      record,
      settings,
      store.chats.messages(conversationId),
      () => undefined,
      isRunning,
    ).messages;
  } finally {
    store.close();
  }
}

describe('every answer that ends is kept, with how it ended', () => {
  it('a remote answer that failed before any text is stored with its error and shown after a reload', () => {
    const path = join(tempDir(), 'history.db');
    const store = openSqliteStore(path);
    const place = { ...askedIn(store.chats), requestId: 'r-500' };
    const keeper = answerKeeper(
      { chats: store.chats, clock: new ManualClock(), log: consoleLog },
      place,
      TURN_META,
    );
    const error = 'gpu-box: HTTP 500: the server failed — CUDA out of memory';
    const messageId = keeper.finish(outcomeOf('r-500', '', 'error', error));
    store.close();
    const [question, answer] = reloaded(path, place.conversationId);
    expect(question!.content).toBe('Hi?');
    expect(answer).toMatchObject({
      messageId,
      role: 'assistant',
      content: '',
      finishReason: 'error',
      errorMessage: error,
    });
  });

  it('a streaming answer is checkpointed within the flush window: interrupted once its request is gone', async () => {
    const path = join(tempDir(), 'history.db');
    const store = openSqliteStore(path);
    const clock = new ManualClock();
    const place = { ...askedIn(store.chats), requestId: 'r-live' };
    const keeper = answerKeeper({ chats: store.chats, clock, log: consoleLog }, place, TURN_META);
    keeper.onText('Hello');
    keeper.onText(', wor');
    expect(store.chats.messages(place.conversationId)).toHaveLength(1); // nothing inside the chunk's turn
    clock.advance(STORE_LIMITS.flushIntervalMs);
    await Promise.resolve(); // the manual clock's timers fire in a microtask
    keeper.onText('ld');
    clock.advance(STORE_LIMITS.flushIntervalMs);
    await Promise.resolve();
    store.close();
    const running = reloaded(path, place.conversationId, () => true).at(-1)!;
    expect(running).toMatchObject({ content: 'Hello, world', finishReason: null });
    const afterKill = reloaded(path, place.conversationId).at(-1)!;
    expect(afterKill).toMatchObject({
      content: 'Hello, world',
      finishReason: 'interrupted',
      errorMessage: null,
    });
  });

  it('the end rewrites the checkpoint: a deadline keeps its text, its reason and its words', async () => {
    const path = join(tempDir(), 'history.db');
    const store = openSqliteStore(path);
    const clock = new ManualClock();
    const place = { ...askedIn(store.chats), requestId: 'r-deadline' };
    const keeper = answerKeeper({ chats: store.chats, clock, log: consoleLog }, place, TURN_META);
    keeper.onText('Once upon');
    clock.advance(STORE_LIMITS.flushIntervalMs);
    await Promise.resolve();
    const messageId = keeper.finish(
      outcomeOf('r-deadline', 'Once upon a', 'deadline', 'the request passed its deadline'),
    );
    expect(store.chats.messages(place.conversationId)).toHaveLength(2);
    store.close();
    expect(reloaded(path, place.conversationId).at(-1)).toMatchObject({
      messageId,
      content: 'Once upon a',
      finishReason: 'deadline',
      errorMessage: 'the request passed its deadline',
    });
  });

  it('a conversation deleted mid-answer leaves the answer nowhere to go: no id, and the log says so', async () => {
    const store = openSqliteStore(join(tempDir(), 'history.db'));
    const clock = new ManualClock();
    const warnings: string[] = [];
    const log = { warn: (_topic: string, message: string) => void warnings.push(message) };
    const place = { ...askedIn(store.chats), requestId: 'r-gone' };
    const keeper = answerKeeper({ chats: store.chats, clock, log }, place, TURN_META);
    keeper.onText('Hel');
    clock.advance(STORE_LIMITS.flushIntervalMs);
    await Promise.resolve();
    store.chats.deleteConversation(place.conversationId);
    expect(keeper.finish(outcomeOf('r-gone', 'Hello', 'stop'))).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/answer of r-gone not stored/)]);
    store.close();
  });
});
