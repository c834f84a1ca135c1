import type { z } from 'zod';
import type { StoredMessageSchema } from '../../src-main/service/contract';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';

/** A message the user sent. */
export interface UserItem {
  kind: 'user';
  key: string;
  text: string;
}

/** Where an answer is in its life, as the chat shows it. */
export type AnswerStatus = 'sending' | 'waiting' | 'streaming' | 'done' | 'failed';

/**
 * One answer: its text so far and, once finished, its timeline. `sentAt` and `firstChunkAt`
 * are the renderer's own clock (performance.now()); their difference is the client TTFT.
 */
export interface AnswerItem {
  kind: 'assistant';
  key: string;
  requestId: string | null;
  text: string;
  status: AnswerStatus;
  queuePosition: number | null;
  timeline: Timeline | null;
  sentAt: number | null;
  firstChunkAt: number | null;
  clientTtftMs: number | null;
  isStopRequested: boolean;
  error: string | null;
}

/** One row of the conversation. */
export type ChatItem = UserItem | AnswerItem;

type StoredMessage = z.infer<typeof StoredMessageSchema>;

let nextKey = 0;
/** A key unique within this page, for React lists. */
export function newKey(prefix: string): string {
  return `${prefix}-${++nextKey}`;
}

/** A fresh answer placeholder, stamped as sent now. */
export function newAnswer(sentAt: number): AnswerItem {
  return {
    kind: 'assistant',
    key: newKey('a'),
    requestId: null,
    text: '',
    status: 'sending',
    queuePosition: null,
    timeline: null,
    sentAt,
    firstChunkAt: null,
    clientTtftMs: null,
    isStopRequested: false,
    error: null,
  };
}

/** Rows for a stored conversation (system messages are not shown). */
export function itemsFromStored(messages: readonly StoredMessage[]): ChatItem[] {
  const items: ChatItem[] = [];
  for (const m of messages) {
    if (m.role === 'user') items.push({ kind: 'user', key: m.messageId, text: m.content });
    if (m.role !== 'assistant') continue;
    items.push({
      ...newAnswer(0),
      key: m.messageId,
      requestId: m.requestId,
      text: m.content,
      status: 'done',
      sentAt: null,
      timeline: m.timeline,
      clientTtftMs: m.timeline?.clientTtftMs ?? null,
    });
  }
  return items;
}

/** The items with one answer replaced through `change` (same array when it is absent). */
export function updateAnswer(
  items: ChatItem[],
  match: (a: AnswerItem) => boolean,
  change: (a: AnswerItem) => AnswerItem,
): ChatItem[] {
  const at = items.findIndex((item) => item.kind === 'assistant' && match(item));
  if (at < 0) return items;
  const next = items.slice();
  next[at] = change(items[at] as AnswerItem);
  return next;
}
