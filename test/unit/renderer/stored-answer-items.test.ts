import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../../src-main/service/contract/chat-schemas';
import { itemsFromStored } from '../../../src-renderer/store/chat-items';

/** A stored answer without a timeline (a failure before any, or a checkpoint cut off by a kill). */
function storedAnswer(over: Partial<StoredMessage>): StoredMessage {
  return {
    messageId: 'a1',
    parentId: 'q1',
    role: 'assistant',
    content: '',
    createdWallMs: 1,
    requestId: 'r1',
    timeline: null,
    finishReason: 'stop',
    errorMessage: null,
    forecast: null,
    numDroppedMessages: 0,
    versionIds: ['a1'],
    version: 1,
    ...over,
  };
}

describe('stored answers after a reload', () => {
  it('a failed answer shows its stored error and ending', () => {
    const [item] = itemsFromStored([
      storedAnswer({ finishReason: 'error', errorMessage: 'gpu-box: HTTP 500: the server failed' }),
    ]);
    expect(item).toMatchObject({
      kind: 'assistant',
      status: 'done',
      finishReason: 'error',
      error: 'gpu-box: HTTP 500: the server failed',
    });
  });

  it('an interrupted answer keeps its text and its ending, with no error', () => {
    const [item] = itemsFromStored([storedAnswer({ content: '1 2 3', finishReason: 'interrupted' })]);
    expect(item).toMatchObject({ text: '1 2 3', finishReason: 'interrupted', error: null });
  });
});
