import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMITS } from '../../../../src-main/limits';
import { ConversationExportSchema } from '../../../../src-main/service/contract/chat-schemas';
import { answerKeeper } from '../../../../src-main/service/chat/answer-keeper';
import { defaultSettings } from '../../../../src-main/service/chat/settings';
import { exportJson, parseImport } from '../../../../src-main/service/chat/transfer';
import { conversationView } from '../../../../src-main/service/chat/view';
import { openSqliteHistory } from '../../../../src-main/history/history';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import { consoleLog } from '../../../../src-main/telemetry/log/log';
import { TURN_META } from '../../../support/answer-turn';
import { useTempDirs } from '../../history/temp-dir';

const tempDir = useTempDirs();

/** A history file holding one question and an answer checkpointed mid-stream (the app then killed). */
async function interruptedHistory(path: string): Promise<string> {
  const history = openSqliteHistory(path);
  const clock = new ManualClock();
  const { conversationId } = history.chats.createConversation({ title: 'Cut off' });
  const question = history.chats.addMessage({ conversationId, role: 'user', content: 'Tell me a story.' });
  history.chats.setLeaf(conversationId, question.messageId);
  const place = {
    conversationId,
    userMessageId: question.messageId,
    leafAtStart: question.messageId,
    requestId: 'r-killed',
  };
  const keeper = answerKeeper({ chats: history.chats, clock, log: consoleLog }, place, TURN_META);
  keeper.onText('Once upon a');
  clock.advance(HISTORY_LIMITS.flushIntervalMs);
  await Promise.resolve(); // the manual clock's timers fire in a microtask
  history.close(); // no finish: the process died here
  return conversationId;
}

/** The branch on screen, the history opened anew from its file (nothing running). */
function shown(path: string, conversationId: string) {
  const history = openSqliteHistory(path);
  try {
    const record = history.chats.getConversation(conversationId)!;
    return conversationView(
      record,
      defaultSettings(history.chats),
      history.chats.messages(conversationId),
      () => undefined,
    ).messages;
  } finally {
    history.close();
  }
}

describe('an interrupted answer keeps its finish through every schema that carries one', () => {
  it('is exported interrupted, passes the export schema, and is shown interrupted after an import and a reload', async () => {
    const path = join(tempDir(), 'history.db');
    const conversationId = await interruptedHistory(path);
    expect(shown(path, conversationId).at(-1)).toMatchObject({
      content: 'Once upon a',
      finishReason: 'interrupted',
    });

    const history = openSqliteHistory(path);
    const text = exportJson(
      history.chats.getConversation(conversationId)!,
      defaultSettings(history.chats),
      history.chats.messages(conversationId),
      0,
    );
    history.close();
    const exported = ConversationExportSchema.parse(JSON.parse(text));
    expect(exported.messages.map((m) => m.finishReason)).toEqual([null, 'interrupted']);

    const otherPath = join(tempDir(), 'other.db');
    const other = openSqliteHistory(otherPath);
    const parsed = parseImport(text, 'cut-off.json');
    const imported = other.chats.importConversation(parsed.conversation, parsed.messages);
    other.close();
    expect(shown(otherPath, imported.conversationId).at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Once upon a',
      finishReason: 'interrupted',
      errorMessage: null,
    });
  });

  it('is exported without a finish while its request still runs', async () => {
    const path = join(tempDir(), 'history.db');
    const conversationId = await interruptedHistory(path);
    const history = openSqliteHistory(path);
    const text = exportJson(
      history.chats.getConversation(conversationId)!,
      defaultSettings(history.chats),
      history.chats.messages(conversationId),
      0,
      (requestId) => requestId === 'r-killed',
    );
    history.close();
    expect(ConversationExportSchema.parse(JSON.parse(text)).messages.at(-1)!.finishReason).toBeNull();
  });
});
