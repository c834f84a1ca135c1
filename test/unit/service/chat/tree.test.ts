import { describe, expect, it } from 'vitest';
import { newestLeafUnder, pathTo, versionsOf } from '../../../../src-main/service/chat/tree';
import { messageRecord } from '../../../../src-main/history/queries/chat-records';
import type { MessageRecord } from '../../../../src-main/history/queries/chat-records';

const m = (messageId: string, parentId: string | null, role: MessageRecord['role']) =>
  messageRecord({ conversationId: 'c', messageId, parentId, role, content: messageId });

// q1 → a1, a1' (regenerated) ; a1 → q2 → a2 ; a1 → q2' (edited) → a2'
const tree = [
  m('q1', null, 'user'),
  m('a1', 'q1', 'assistant'),
  m('q2', 'a1', 'user'),
  m('a2', 'q2', 'assistant'),
  m('a1b', 'q1', 'assistant'),
  m('q2b', 'a1', 'user'),
  m('a2b', 'q2b', 'assistant'),
];

describe('conversation trees', () => {
  it('the branch on screen is the path from the first turn to the leaf', () => {
    expect(pathTo(tree, 'a2b').map((x) => x.messageId)).toEqual(['q1', 'a1', 'q2b', 'a2b']);
    expect(pathTo(tree, null)).toEqual([]);
  });

  it('versions of a turn are its same-role siblings, oldest first', () => {
    expect(versionsOf(tree, tree[1]!).map((x) => x.messageId)).toEqual(['a1', 'a1b']);
    expect(versionsOf(tree, tree[2]!).map((x) => x.messageId)).toEqual(['q2', 'q2b']);
  });

  it('switching to a version follows its newest descendants to a leaf', () => {
    expect(newestLeafUnder(tree, 'a1')).toBe('a2b');
    expect(newestLeafUnder(tree, 'q2')).toBe('a2');
    expect(newestLeafUnder(tree, 'a1b')).toBe('a1b');
  });

  it('a cycle in hand-edited data ends the path instead of looping', () => {
    const cyclic = [m('x', 'y', 'user'), m('y', 'x', 'assistant')];
    expect(pathTo(cyclic, 'x').map((x) => x.messageId)).toEqual(['y', 'x']);
  });
});
