import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMITS } from '../../../../src-main/limits';
import { answerKeeper } from '../../../../src-main/service/chat/answer-keeper';
import { conversationView } from '../../../../src-main/service/chat/view';
import { defaultSettings } from '../../../../src-main/service/chat/settings';
import type { ChatQueries } from '../../../../src-main/history/queries/chat-records';
import { openSqliteHistory } from '../../../../src-main/history/history';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import { consoleLog } from '../../../../src-main/telemetry/log/log';
import { outcomeOf, TURN_META } from '../../../support/answer-turn';
import { useTempDirs } from '../../history/temp-dir';

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
  const history = openSqliteHistory(path);
  try {
    const record = history.chats.getConversation(conversationId)!;
    const settings = defaultSettings(history.chats);
    return conversationView(
      record,
      settings,
      history.chats.messages(conversationId),
      () => undefined,
      isRunning,
    ).messages;
  } finally {
    history.close();
  }
}

describe('every answer that ends is kept, with how it ended', () => {
  it('a remote answer that failed before any text is stored with its error and shown after a reload', () => {
    const path = join(tempDir(), 'history.db');
    const history = openSqliteHistory(path);
    const place = { ...askedIn(history.chats), requestId: 'r-500' };
    const keeper = answerKeeper(
      { chats: history.chats, clock: new ManualClock(), log: consoleLog },
      place,
      TURN_META,
    );
    const error = 'gpu-box: HTTP 500: the server failed — CUDA out of memory';
    const messageId = keeper.finish(outcomeOf('r-500', '', 'error', error));
    history.close();
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
    const history = openSqliteHistory(path);
    const clock = new ManualClock();
    const place = { ...askedIn(history.chats), requestId: 'r-live' };
    const keeper = answerKeeper({ chats: history.chats, clock, log: consoleLog }, place, TURN_META);
    keeper.onText('Hello');
    keeper.onText(', wor');
    expect(history.chats.messages(place.conversationId)).toHaveLength(1); // nothing inside the chunk's turn
    clock.advance(HISTORY_LIMITS.flushIntervalMs);
    await Promise.resolve(); // the manual clock's timers fire in a microtask
    keeper.onText('ld');
    clock.advance(HISTORY_LIMITS.flushIntervalMs);
    await Promise.resolve();
    history.close();
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
    const history = openSqliteHistory(path);
    const clock = new ManualClock();
    const place = { ...askedIn(history.chats), requestId: 'r-deadline' };
    const keeper = answerKeeper({ chats: history.chats, clock, log: consoleLog }, place, TURN_META);
    keeper.onText('Once upon');
    clock.advance(HISTORY_LIMITS.flushIntervalMs);
    await Promise.resolve();
    const messageId = keeper.finish(
      outcomeOf('r-deadline', 'Once upon a', 'deadline', 'the request passed its deadline'),
    );
    expect(history.chats.messages(place.conversationId)).toHaveLength(2);
    history.close();
    expect(reloaded(path, place.conversationId).at(-1)).toMatchObject({
      messageId,
      content: 'Once upon a',
      finishReason: 'deadline',
      errorMessage: 'the request passed its deadline',
    });
  });

  it('a conversation deleted mid-answer leaves the answer nowhere to go: no id, and the log says so', async () => {
    const history = openSqliteHistory(join(tempDir(), 'history.db'));
    const clock = new ManualClock();
    const warnings: string[] = [];
    const log = { warn: (_topic: string, message: string) => void warnings.push(message) };
    const place = { ...askedIn(history.chats), requestId: 'r-gone' };
    const keeper = answerKeeper({ chats: history.chats, clock, log }, place, TURN_META);
    keeper.onText('Hel');
    clock.advance(HISTORY_LIMITS.flushIntervalMs);
    await Promise.resolve();
    history.chats.deleteConversation(place.conversationId);
    expect(keeper.finish(outcomeOf('r-gone', 'Hello', 'stop'))).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/answer of r-gone not stored/)]);
    history.close();
  });
});
