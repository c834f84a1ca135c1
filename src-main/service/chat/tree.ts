import type { MessageRecord } from '../../history/queries/chat-records';

/**
 * Conversation trees: a message's parent is the message it follows; siblings of one role under
 * one parent are versions of a turn (regenerated answers, edited questions). The branch on
 * screen is the path from the first turn to the conversation's leaf.
 */

/** The messages from the first turn to `leafId`, oldest first (empty when the leaf is unknown). */
export function pathTo(messages: readonly MessageRecord[], leafId: string | null): MessageRecord[] {
  const byId = new Map(messages.map((m) => [m.messageId, m]));
  const path: MessageRecord[] = [];
  const seen = new Set<string>();
  for (let id = leafId; id !== null && !seen.has(id);) {
    const message = byId.get(id);
    if (!message) break;
    seen.add(id);
    path.push(message);
    id = message.parentId;
  }
  return path.reverse();
}

/** Every version of the turn `message` belongs to (same parent, same role), oldest first. */
export function versionsOf(messages: readonly MessageRecord[], message: MessageRecord): MessageRecord[] {
  return messages.filter((m) => m.parentId === message.parentId && m.role === message.role);
}

/** The leaf a branch ends in: from `messageId`, follow the newest child until there is none. */
export function newestLeafUnder(messages: readonly MessageRecord[], messageId: string): string {
  const newestChild = new Map<string, MessageRecord>();
  for (const m of messages) if (m.parentId !== null) newestChild.set(m.parentId, m);
  let id = messageId;
  for (let guard = 0; guard <= messages.length; guard++) {
    const child = newestChild.get(id);
    if (!child) break;
    id = child.messageId;
  }
  return id;
}
