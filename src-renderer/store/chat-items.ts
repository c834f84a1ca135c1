import type { SendForecast, StoredMessage } from '../../src-main/service/contract/chat-schemas';
import type { FinishReason, Timeline } from '../../src-main/telemetry/timeline/schema';

/** Where a message sits among the versions of its turn (1-based), and their ids. */
export interface Versions {
  /** Ids of every version, oldest first; a version still being made has no id yet (null). */
  versionIds: (string | null)[];
  version: number;
}

/** A message the user sent (null id: the service has not stored it yet). */
export interface UserItem extends Versions {
  kind: 'user';
  key: string;
  messageId: string | null;
  text: string;
}

/** Where an answer is in its life, as the chat shows it. */
export type AnswerStatus = 'sending' | 'waiting' | 'streaming' | 'done' | 'failed';

/**
 * One answer: its text so far and, once finished, its timeline. `sentAt`, `firstChunkAt` and
 * `doneAt` are the renderer's own clock (performance.now()); first chunk − send is the client
 * TTFT, done − send the client E2E. `forecast` is what the composer predicted when it was sent
 * (shown beside the measured TTFT). A new answer's `requestId` is chosen here and sent with the
 * turn, so its events match it from the first one.
 */
export interface AnswerItem extends Versions {
  kind: 'assistant';
  key: string;
  messageId: string | null;
  requestId: string | null;
  text: string;
  status: AnswerStatus;
  queuePosition: number | null;
  timeline: Timeline | null;
  finishReason: FinishReason | null;
  forecast: SendForecast | null;
  /** Older messages the request left out to fit the context. */
  numDroppedMessages: number;
  sentAt: number | null;
  firstChunkAt: number | null;
  /** When `request.done` arrived (the stream's end as this client saw it). */
  doneAt: number | null;
  clientTtftMs: number | null;
  isStopRequested: boolean;
  error: string | null;
}

/** One row of the conversation. */
export type ChatItem = UserItem | AnswerItem;

let nextKey = 0;
/** A key unique within this page, for React lists. */
export function newKey(prefix: string): string {
  return `${prefix}-${++nextKey}`;
}

/** A fresh answer placeholder, stamped as sent now; `versions` when it is a new version of a turn. */
export function newAnswer(sentAt: number, versions?: Versions): AnswerItem {
  return {
    kind: 'assistant',
    key: newKey('a'),
    messageId: null,
    requestId: crypto.randomUUID(),
    text: '',
    status: 'sending',
    queuePosition: null,
    timeline: null,
    finishReason: null,
    forecast: null,
    numDroppedMessages: 0,
    sentAt,
    firstChunkAt: null,
    doneAt: null,
    clientTtftMs: null,
    isStopRequested: false,
    error: null,
    ...(versions ?? { versionIds: [null], version: 1 }),
  };
}

/** A question as shown before the service stored it. */
export function newQuestion(text: string, versions?: Versions): UserItem {
  return {
    kind: 'user',
    key: newKey('u'),
    messageId: null,
    text,
    ...(versions ?? { versionIds: [null], version: 1 }),
  };
}

/** Rows for a stored conversation (system messages are not shown). */
export function itemsFromStored(messages: readonly StoredMessage[]): ChatItem[] {
  const items: ChatItem[] = [];
  for (const m of messages) {
    const versions = { versionIds: m.versionIds, version: m.version };
    if (m.role === 'user')
      items.push({ kind: 'user', key: m.messageId, messageId: m.messageId, text: m.content, ...versions });
    if (m.role !== 'assistant') continue;
    items.push({
      ...newAnswer(0, versions),
      key: m.messageId,
      messageId: m.messageId,
      requestId: m.requestId,
      text: m.content,
      status: 'done',
      sentAt: null,
      timeline: m.timeline,
      finishReason: m.finishReason,
      // The timeline's stats say the error when it was kept; otherwise the stored answer does.
      error: m.timeline?.errorMessage ? null : m.errorMessage,
      forecast: m.forecast,
      numDroppedMessages: m.numDroppedMessages,
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

/** The versions of a turn with one more, still being made, at the end. */
export function withNewVersion(versions: Versions): Versions {
  return { versionIds: [...versions.versionIds, null], version: versions.versionIds.length + 1 };
}

/** The versions with the one being made (null) named by its stored id. */
export function namedVersion(versions: Versions, messageId: string): Versions {
  const versionIds = versions.versionIds.map((id, i) =>
    id === null && i === versions.version - 1 ? messageId : id,
  );
  return { versionIds, version: versions.version };
}
