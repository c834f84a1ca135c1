import type { ConversationPatch, WaitingChatWrite } from './chat-write-queue';
import { applyConversationPatch, ChatWriteQueue } from './chat-write-queue';
import type { HistoryHealth } from './health';
import type { AnswerPatch, ChatQueries, ConversationRecord, MessageRecord } from './queries/chat-records';
import { conversationRecord, messageRecord } from './queries/chat-records';
import type { SpilledChatWrite } from './spill';
import type { FlushTimer } from './writer/flush-timer';
import { eventLoopFlushTimer } from './writer/flush-timer';

/** Chat history that keeps working while the database refuses writes; `health` says why. */
export interface PendingChats extends ChatQueries {
  readonly health: HistoryHealth;
  /** Writes still waiting for the database. */
  readonly numPending: number;
  /** Tries the waiting writes now (shutdown: after the connection was allowed to wait). */
  flush(): void;
  /** Hands over the writes still waiting, in order, in a form a spill file holds (shutdown). */
  takePending(): SpilledChatWrite[];
}

/**
 * The serving path's chat history over the database's: a write the database refuses for now
 * (another process holds the lock, the disk is full) — a new conversation, a message, a
 * title, the branch on screen, settings — is kept in memory, in order, and
 * retried on a timer, so sending a message never fails or waits on the disk. Reads merge the
 * waiting writes in, so the conversation shows them at once. Anything else (unknown id,
 * corrupt file) still throws, as before.
 */
export function pendingChats(db: ChatQueries, flushTimer: FlushTimer = eventLoopFlushTimer): PendingChats {
  const queue = new ChatWriteQueue(db, flushTimer);
  const { waiting } = queue;

  /** Changes a conversation now, or after the writes waiting before it; true when it exists. */
  const update = (conversationId: string, patch: ConversationPatch): boolean => {
    let isChanged = false;
    queue.writeOrKeep(
      { kind: 'update', conversationId, patch },
      () => (isChanged = applyConversationPatch(db, conversationId, patch)),
    );
    if (isChanged || waiting.length === 0) return isChanged;
    return (db.getConversation(conversationId) ?? waitingConversation(waiting, conversationId)) !== null;
  };

  return {
    ...db,
    createConversation: (input) => {
      const record = conversationRecord(input);
      const complete = { ...input, conversationId: record.conversationId, atWallMs: record.createdWallMs };
      queue.writeOrKeep({ kind: 'conversation', record, input: complete }, () =>
        db.createConversation(complete),
      );
      return { ...record };
    },
    listConversations: () => {
      const stored = db.listConversations();
      const known = new Set(stored.map((c) => c.conversationId));
      const kept = waiting.flatMap((p) =>
        p.kind === 'conversation' && !known.has(p.record.conversationId) ? [p.record] : [],
      );
      return [...stored, ...kept]
        .map((record) => withWaitingChanges(waiting, record))
        .sort((a, b) => b.updatedWallMs - a.updatedWallMs);
    },
    getConversation: (conversationId) => {
      const record = db.getConversation(conversationId) ?? waitingConversation(waiting, conversationId);
      return record ? withWaitingChanges(waiting, record) : null;
    },
    renameConversation: (conversationId, title) => update(conversationId, { title }),
    setLeaf: (conversationId, messageId) => update(conversationId, { leafMessageId: messageId }),
    setSettings: (conversationId, settings) => update(conversationId, { settings }),
    deleteConversation: (conversationId) => {
      const numDropped = queue.dropConversation(conversationId);
      return db.deleteConversation(conversationId) || numDropped > 0;
    },
    addMessage: (input) => {
      const record = messageRecord(input);
      const complete = { ...input, messageId: record.messageId, atWallMs: record.createdWallMs };
      queue.writeOrKeep(
        { kind: 'message', conversationId: input.conversationId, record, input: complete },
        () => db.addMessage(complete),
      );
      return { ...record };
    },
    updateAnswer: (messageId, patch) => {
      if (rewriteWaitingAnswer(waiting, messageId, patch)) return true;
      let isChanged = false;
      queue.writeOrKeep(
        { kind: 'answer', messageId, patch },
        () => (isChanged = db.updateAnswer(messageId, patch)),
      );
      return isChanged || waiting.length > 0;
    },
    messages: (conversationId) => [
      ...db.messages(conversationId).map((record) => withAnswerPatches(waiting, record)),
      ...waitingFor(waiting, conversationId).flatMap((p) => (p.kind === 'message' ? [{ ...p.record }] : [])),
    ],
    get health() {
      return queue.health;
    },
    get numPending() {
      return waiting.length;
    },
    flush: () => queue.flush(),
    takePending: () => queue.takeAll().map(spilledOf),
  };
}

/** The waiting messages and changes of one conversation, oldest first. */
function waitingFor(waiting: readonly WaitingChatWrite[], conversationId: string): WaitingChatWrite[] {
  return waiting.filter(
    (p) => (p.kind === 'message' || p.kind === 'update') && p.conversationId === conversationId,
  );
}

/** A conversation still waiting to be created, or null. */
function waitingConversation(
  waiting: readonly WaitingChatWrite[],
  conversationId: string,
): ConversationRecord | null {
  for (const item of waiting)
    if (item.kind === 'conversation' && item.record.conversationId === conversationId) return item.record;
  return null;
}

/** A conversation as the writes waiting for it leave it: fields changed, messages counted. */
function withWaitingChanges(
  waiting: readonly WaitingChatWrite[],
  record: ConversationRecord,
): ConversationRecord {
  const copy = { ...record };
  for (const item of waitingFor(waiting, record.conversationId)) {
    if (item.kind === 'update') Object.assign(copy, item.patch);
    if (item.kind !== 'message') continue;
    copy.numMessages += 1;
    copy.updatedWallMs = Math.max(copy.updatedWallMs, item.record.createdWallMs);
  }
  return copy;
}

/** A stored answer as the writes waiting to rewrite it leave it. */
function withAnswerPatches(waiting: readonly WaitingChatWrite[], record: MessageRecord): MessageRecord {
  let copy = record;
  for (const item of waiting)
    if (item.kind === 'answer' && item.messageId === record.messageId) copy = { ...copy, ...item.patch };
  return copy;
}

/**
 * Rewrites an answer whose row still waits in place, so it is written once, as it ends up; false
 * when no waiting message has that id.
 */
function rewriteWaitingAnswer(
  waiting: readonly WaitingChatWrite[],
  messageId: string,
  patch: AnswerPatch,
): boolean {
  for (const item of waiting)
    if (item.kind === 'message' && item.record.messageId === messageId) {
      Object.assign(item.record, patch);
      Object.assign(item.input, patch);
      return true;
    }
  return false;
}

/** A waiting write in the form a spill file holds. */
function spilledOf(item: WaitingChatWrite): SpilledChatWrite {
  if (item.kind === 'conversation') return { kind: 'conversation', input: item.input };
  if (item.kind === 'message') return { kind: 'message', input: item.input };
  if (item.kind === 'answer') return { kind: 'answerUpdate', messageId: item.messageId, patch: item.patch };
  return { kind: 'chatUpdate', conversationId: item.conversationId, patch: item.patch };
}

/** Applies chat writes a spill kept (history/spill.ts), in order. */
export function applySpilledChats(db: ChatQueries, writes: readonly SpilledChatWrite[]): void {
  for (const write of writes) {
    if (write.kind === 'conversation') db.createConversation(write.input);
    else if (write.kind === 'message') db.addMessage(write.input);
    else if (write.kind === 'answerUpdate') db.updateAnswer(write.messageId, write.patch);
    else applyConversationPatch(db, write.conversationId, write.patch);
  }
}
