import { STORE_LIMITS } from '../limits';
import { printError } from '../printable';
import { writeProblemOf } from './errors';
import type { HistoryHealth } from './health';
import { HealthTracker } from './health';
import type {
  AnswerPatch,
  ChatQueries,
  ConversationRecord,
  MessageRecord,
  NewConversation,
  NewMessage,
} from './queries/chat-records';
import { conversationRecord, messageRecord } from './queries/chat-records';
import type { SpilledChatWrite } from './spill';
import type { FlushTimer } from './writer/flush-timer';
import { eventLoopFlushTimer } from './writer/flush-timer';

/** A chat write the database refused for now (busy, full), kept in memory until it is written. */
type PendingWrite =
  | { kind: 'conversation'; record: ConversationRecord; input: NewConversation }
  | { kind: 'message'; conversationId: string; record: MessageRecord; input: NewMessage }
  | { kind: 'answer'; messageId: string; patch: AnswerPatch }
  | { kind: 'update'; conversationId: string; patch: ConversationPatch; replay: (db: ChatQueries) => void };

/** The conversation fields a waiting write changes: its title, the branch on screen, its settings. */
type ConversationPatch = Partial<Pick<ConversationRecord, 'title' | 'leafMessageId' | 'settings'>>;

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
  const pending: PendingWrite[] = [];
  const tracker = new HealthTracker(() => pending.length);
  let retry: { cancel(): void } | null = null;
  let numBusyRetries = 0;

  // Once the database can no longer be written at all (corrupt, read-only), the chat goes on
  // in memory for this session; the store's status says history is off and why.
  let isDead = false;

  /** Writes now when nothing waits and the database takes it; otherwise keeps it in order. */
  const write = (item: PendingWrite, now: () => void): void => {
    if (pending.length === 0 && !isDead) {
      try {
        now();
        return;
      } catch (error) {
        const problem = writeProblemOf(error);
        if (problem === 'item') throw error;
        if (problem === 'fatal') isDead = true;
        else tracker.refused(problem, error);
      }
    }
    pending.push(item);
    scheduleRetry();
  };

  const replay = (): void => {
    while (pending.length > 0 && !isDead) {
      const item = pending[0]!;
      try {
        apply(db, item);
      } catch (error) {
        const problem = writeProblemOf(error);
        if (problem === 'fatal') return void (isDead = true);
        if (problem !== 'item') {
          tracker.refused(problem, error);
          return scheduleRetry(problem);
        }
        // The row cannot be written at all (its conversation was deleted meanwhile): say so.
        printError(`[history] a waiting chat write was dropped: ${(error as Error).message}`);
      }
      pending.shift();
    }
    numBusyRetries = 0;
    tracker.recovered();
  };

  const scheduleRetry = (problem: 'busy' | 'full' = 'busy'): void => {
    if (retry || isDead) return;
    const delayMs =
      problem === 'full'
        ? STORE_LIMITS.fullRetryMs
        : Math.min(STORE_LIMITS.busyRetryMs * 2 ** numBusyRetries++, STORE_LIMITS.maxBusyRetryMs);
    retry = flushTimer.later(delayMs, () => {
      retry = null;
      replay();
    });
  };

  const waitingFor = (conversationId: string) =>
    pending.filter(
      (p) => (p.kind === 'message' || p.kind === 'update') && p.conversationId === conversationId,
    );
  /** A stored answer as the writes waiting to rewrite it leave it. */
  const withAnswerPatches = (record: MessageRecord): MessageRecord => {
    let copy = record;
    for (const item of pending)
      if (item.kind === 'answer' && item.messageId === record.messageId) copy = { ...copy, ...item.patch };
    return copy;
  };
  const withWaiting = (record: ConversationRecord): ConversationRecord => {
    const copy = { ...record };
    for (const item of waitingFor(record.conversationId)) {
      if (item.kind === 'update') Object.assign(copy, item.patch);
      if (item.kind !== 'message') continue;
      copy.numMessages += 1;
      copy.updatedWallMs = Math.max(copy.updatedWallMs, item.record.createdWallMs);
    }
    return copy;
  };
  const waitingConversation = (conversationId: string): ConversationRecord | null => {
    for (const item of pending)
      if (item.kind === 'conversation' && item.record.conversationId === conversationId) return item.record;
    return null;
  };

  /** Changes a conversation now, or after the writes waiting before it; true when it exists. */
  const update = (
    conversationId: string,
    patch: ConversationPatch,
    change: (to: ChatQueries) => boolean,
  ): boolean => {
    let isChanged = false;
    const replay = (to: ChatQueries) => void change(to);
    write({ kind: 'update', conversationId, patch, replay }, () => (isChanged = change(db)));
    if (isChanged || pending.length === 0) return isChanged;
    return (db.getConversation(conversationId) ?? waitingConversation(conversationId)) !== null;
  };

  return {
    ...db,
    createConversation: (input) => {
      const record = conversationRecord(input);
      const complete = { ...input, conversationId: record.conversationId, atWallMs: record.createdWallMs };
      write({ kind: 'conversation', record, input: complete }, () => db.createConversation(complete));
      return { ...record };
    },
    listConversations: () => {
      const stored = db.listConversations();
      const known = new Set(stored.map((c) => c.conversationId));
      const waiting = pending.flatMap((p) =>
        p.kind === 'conversation' && !known.has(p.record.conversationId) ? [p.record] : [],
      );
      return [...stored, ...waiting].map(withWaiting).sort((a, b) => b.updatedWallMs - a.updatedWallMs);
    },
    getConversation: (conversationId) => {
      const record = db.getConversation(conversationId) ?? waitingConversation(conversationId);
      return record ? withWaiting(record) : null;
    },
    renameConversation: (conversationId, title) =>
      update(conversationId, { title }, (to) => to.renameConversation(conversationId, title)),
    setLeaf: (conversationId, messageId) =>
      update(conversationId, { leafMessageId: messageId }, (to) => to.setLeaf(conversationId, messageId)),
    setSettings: (conversationId, settings) =>
      update(conversationId, { settings }, (to) => to.setSettings(conversationId, settings)),
    deleteConversation: (conversationId) => {
      const numBefore = pending.length;
      for (let i = pending.length - 1; i >= 0; i--) {
        const item = pending[i]!;
        if (item.kind === 'answer') continue; // its row goes with the conversation; the replay finds none
        const id = item.kind === 'conversation' ? item.record.conversationId : item.conversationId;
        if (id === conversationId) pending.splice(i, 1);
      }
      return db.deleteConversation(conversationId) || pending.length < numBefore;
    },
    addMessage: (input) => {
      const record = messageRecord(input);
      const complete = { ...input, messageId: record.messageId, atWallMs: record.createdWallMs };
      write({ kind: 'message', conversationId: input.conversationId, record, input: complete }, () =>
        db.addMessage(complete),
      );
      return { ...record };
    },
    updateAnswer: (messageId, patch) => {
      // An answer whose row still waits is rewritten in place: it is written once, as it ends up.
      for (const item of pending)
        if (item.kind === 'message' && item.record.messageId === messageId) {
          Object.assign(item.record, patch);
          Object.assign(item.input, patch);
          return true;
        }
      let isChanged = false;
      write({ kind: 'answer', messageId, patch }, () => (isChanged = db.updateAnswer(messageId, patch)));
      return isChanged || pending.length > 0;
    },
    messages: (conversationId) => [
      ...db.messages(conversationId).map(withAnswerPatches),
      ...waitingFor(conversationId).flatMap((p) => (p.kind === 'message' ? [{ ...p.record }] : [])),
    ],
    get health() {
      return tracker.health;
    },
    get numPending() {
      return pending.length;
    },
    flush: () => {
      retry?.cancel();
      retry = null;
      replay();
    },
    takePending: () => {
      retry?.cancel();
      retry = null;
      return pending.splice(0).map(spilledOf);
    },
  };
}

function spilledOf(item: PendingWrite): SpilledChatWrite {
  if (item.kind === 'conversation') return { kind: 'conversation', input: item.input };
  if (item.kind === 'message') return { kind: 'message', input: item.input };
  if (item.kind === 'answer') return { kind: 'answerUpdate', messageId: item.messageId, patch: item.patch };
  return { kind: 'chatUpdate', conversationId: item.conversationId, patch: item.patch };
}

/** Applies chat writes a spill kept (store/spill.ts), in order. */
export function applySpilledChats(db: ChatQueries, writes: readonly SpilledChatWrite[]): void {
  for (const write of writes) {
    if (write.kind === 'conversation') db.createConversation(write.input);
    else if (write.kind === 'message') db.addMessage(write.input);
    else if (write.kind === 'answerUpdate') db.updateAnswer(write.messageId, write.patch);
    else {
      const { conversationId, patch } = write;
      if (patch.title !== undefined) db.renameConversation(conversationId, patch.title);
      if (patch.leafMessageId !== undefined) db.setLeaf(conversationId, patch.leafMessageId);
      if (patch.settings !== undefined) db.setSettings(conversationId, patch.settings);
    }
  }
}

function apply(db: ChatQueries, item: PendingWrite): void {
  if (item.kind === 'conversation') db.createConversation(item.input);
  else if (item.kind === 'message') db.addMessage(item.input);
  else if (item.kind === 'answer') db.updateAnswer(item.messageId, item.patch);
  else item.replay(db);
}
