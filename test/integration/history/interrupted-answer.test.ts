import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { conversationView } from '../../../src-main/service/chat/view';
import { defaultSettings } from '../../../src-main/service/chat/settings';
import { openSqliteHistory } from '../../../src-main/history/history';
import { runUntilKilled } from '../../support/kill-child';

const CHILD = new URL('./fixtures/answer-writer.ts', import.meta.url).pathname;
/** Writes of the answer's row the child must report before it is killed (the first, then checkpoints). */
const KILL_AFTER = 3;

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the answering child, SIGKILLs it after KILL_AFTER writes; its conversation and the last length it wrote. */
async function answerThenKill(path: string): Promise<{ conversationId: string; numStoredChars: number }> {
  let conversationId = '';
  const stored: number[] = [];
  await runUntilKilled(CHILD, [path], (line) => {
    conversationId = /^conversation (\S+)$/.exec(line)?.[1] ?? conversationId;
    const match = /^stored (\d+)$/.exec(line);
    if (match) stored.push(Number(match[1]));
    return stored.length === KILL_AFTER;
  });
  return { conversationId, numStoredChars: stored.at(-1)! };
}

describe('an answer cut off by SIGKILL', () => {
  it('is there at the next start with the part that streamed, marked interrupted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-interrupted-'));
    const path = join(dir, 'history.db');
    const { conversationId, numStoredChars } = await answerThenKill(path);
    const history = openSqliteHistory(path);
    const record = history.chats.getConversation(conversationId)!;
    const view = conversationView(
      record,
      defaultSettings(history.chats),
      history.chats.messages(conversationId),
      () => undefined,
    );
    history.close();
    const [question, answer] = view.messages;
    expect(question!.content).toBe('Count, please.');
    expect(answer!.role).toBe('assistant');
    expect(answer!.finishReason).toBe('interrupted');
    // What was reported written is there (a later checkpoint may have landed before the kill).
    expect(answer!.content.length).toBeGreaterThanOrEqual(numStoredChars);
    expect(answer!.content).toMatch(/^1 2 3 (\d+ )+$/);
    expect(record.leafMessageId).toBe(answer!.messageId);
  });
});
