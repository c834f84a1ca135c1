import { HISTORY_LIMITS } from '../limits';
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
import type { FlushTimer } from './writer/flush-timer';

/** The conversation fields a waiting write changes: its title, the branch on screen, its settings. */
export type ConversationPatch = Partial<Pick<ConversationRecord, 'title' | 'leafMessageId' | 'settings'>>;

/** A chat write the database refused for now (busy, full), kept in memory until it is written. */
export type WaitingChatWrite =
  | { kind: 'conversation'; record: ConversationRecord; input: NewConversation }
  | { kind: 'message'; conversationId: string; record: MessageRecord; input: NewMessage }
  | { kind: 'answer'; messageId: string; patch: AnswerPatch }
  | { kind: 'update'; conversationId: string; patch: ConversationPatch };

/**
 * The chat writes waiting for the database, oldest first, and their retries: a write goes through
 * at once when nothing waits and the database takes it; otherwise it waits, and the waiting writes
 * are retried on a timer (busy: backing off; full: a fixed wait) until the database takes them.
 */
export class ChatWriteQueue {
  /** The waiting writes, oldest first; reads merge them in (pending-chats.ts). */
  readonly waiting: WaitingChatWrite[] = [];
  private readonly tracker = new HealthTracker(() => this.waiting.length);
  private retry: { cancel(): void } | null = null;
  private numBusyRetries = 0;
  // Once the database can no longer be written at all (corrupt, read-only), the chat goes on
  // in memory for this session; the store's status says history is off and why.
  private isDead = false;

  constructor(
    private readonly db: ChatQueries,
    private readonly flushTimer: FlushTimer,
  ) {}

  /** How writing goes: ok, or busy/full with the reason and how much waits. */
  get health(): HistoryHealth {
    return this.tracker.health;
  }

  /**
   * Runs `writeNow` when nothing waits and the database takes it; otherwise keeps `item` in order.
   * Rethrows an error about the row itself (unknown conversation), which waiting cannot cure.
   */
  writeOrKeep(item: WaitingChatWrite, writeNow: () => void): void {
    if (this.waiting.length === 0 && !this.isDead) {
      try {
        writeNow();
        return;
      } catch (error) {
        const problem = writeProblemOf(error);
        if (problem === 'item') throw error;
        if (problem === 'fatal') this.isDead = true;
        else this.tracker.refused(problem, error);
      }
    }
    this.waiting.push(item);
    this.scheduleRetry();
  }

  /** Writes the waiting writes in order now, until the database refuses one again (shutdown). */
  flush(): void {
    this.cancelRetry();
    this.writeWaiting();
  }

  /** Removes and returns every waiting write, oldest first, and stops retrying (shutdown's spill). */
  takeAll(): WaitingChatWrite[] {
    this.cancelRetry();
    return this.waiting.splice(0);
  }

  /** Drops the waiting writes that create or change `conversationId`; how many were dropped. */
  dropConversation(conversationId: string): number {
    const numBefore = this.waiting.length;
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const item = this.waiting[i]!;
      if (item.kind === 'answer') continue; // its row goes with the conversation; writing it finds none
      const id = item.kind === 'conversation' ? item.record.conversationId : item.conversationId;
      if (id === conversationId) this.waiting.splice(i, 1);
    }
    return numBefore - this.waiting.length;
  }

  private writeWaiting(): void {
    while (this.waiting.length > 0 && !this.isDead) {
      try {
        writeTo(this.db, this.waiting[0]!);
      } catch (error) {
        const problem = writeProblemOf(error);
        if (problem === 'fatal') return void (this.isDead = true);
        if (problem !== 'item') {
          this.tracker.refused(problem, error);
          return this.scheduleRetry(problem);
        }
        // The row cannot be written at all (its conversation was deleted meanwhile): say so.
        printError(`[history] a waiting chat write was dropped: ${(error as Error).message}`);
      }
      this.waiting.shift();
    }
    this.numBusyRetries = 0;
    this.tracker.recovered();
  }

  private scheduleRetry(problem: 'busy' | 'full' = 'busy'): void {
    if (this.retry || this.isDead) return;
    const delayMs =
      problem === 'full'
        ? HISTORY_LIMITS.fullRetryMs
        : Math.min(HISTORY_LIMITS.busyRetryMs * 2 ** this.numBusyRetries++, HISTORY_LIMITS.maxBusyRetryMs);
    this.retry = this.flushTimer.later(delayMs, () => {
      this.retry = null;
      this.writeWaiting();
    });
  }

  private cancelRetry(): void {
    this.retry?.cancel();
    this.retry = null;
  }
}

/** Writes one kept write to `db`, as the call that was refused would have. */
function writeTo(db: ChatQueries, item: WaitingChatWrite): void {
  if (item.kind === 'conversation') db.createConversation(item.input);
  else if (item.kind === 'message') db.addMessage(item.input);
  else if (item.kind === 'answer') db.updateAnswer(item.messageId, item.patch);
  else applyConversationPatch(db, item.conversationId, item.patch);
}

/**
 * Writes each field `patch` sets by the query that changes it (rename, setLeaf, setSettings);
 * true when one of them found the conversation.
 */
export function applyConversationPatch(
  db: ChatQueries,
  conversationId: string,
  patch: ConversationPatch,
): boolean {
  let isChanged = false;
  if (patch.title !== undefined) isChanged = db.renameConversation(conversationId, patch.title) || isChanged;
  if (patch.leafMessageId !== undefined)
    isChanged = db.setLeaf(conversationId, patch.leafMessageId) || isChanged;
  // Settings are any JSON: `in`, so a patch that sets them is written whatever they are.
  if ('settings' in patch) isChanged = db.setSettings(conversationId, patch.settings) || isChanged;
  return isChanged;
}
