import { HISTORY_LIMITS } from '../../limits';
import type { GenerationOutcome } from '../../runtime/scheduler/request';
import type { AnswerPatch, ChatQueries } from '../../history/queries/chat-records';
import type { Clock } from '../../telemetry/clock';
import type { Log } from '../../telemetry/log/log';
import { reasonOf } from '../../telemetry/log/log';
import type { MessageMeta } from '../contract/chat-schemas';
import { storedFinishOf } from './answer-finish';

/** How an answer's row ends (or, for a checkpoint, does not yet). */
type Ending = Pick<AnswerPatch, 'finishReason'> & Pick<MessageMeta, 'errorMessage' | 'isCheckpoint'>;

/** Where an answer goes: its conversation, the question it replies to, the leaf when it started. */
export interface AnswerPlace {
  conversationId: string;
  userMessageId: string;
  /** The conversation's leaf when the turn started: the answer becomes the leaf only if it still is. */
  leafAtStart: string | null;
  requestId: string;
}

/** Keeps one answer in the history from its first chunk to its end (see answerKeeper). */
export interface AnswerKeeper {
  /** Text that arrived; stored within the flush window (HISTORY_LIMITS.flushIntervalMs). */
  onText(text: string): void;
  /** Stores the answer as it ended, failures included; its message id, or null when it has nowhere to go. */
  finish(outcome: GenerationOutcome): string | null;
}

/**
 * One answer's row, from its first chunk to its end. Within a flush window of its first chunk
 * a checkpoint is stored (`isCheckpoint`: no finish reason yet) and put on screen; later text
 * is written at most once per flush window, so an app killed mid-answer keeps what had
 * streamed until then and shows it as `interrupted` at the next start. The end rewrites the row with the outcome's text,
 * finish reason and error; an answer that ends before any text (refused, failed, cancelled
 * early) is stored then, so the question never stands alone.
 */
export function answerKeeper(
  deps: { chats: ChatQueries; clock: Clock; log: Log },
  place: AnswerPlace,
  meta: MessageMeta,
): AnswerKeeper {
  const { chats, clock } = deps;
  let text = '';
  let messageId: string | null = null;
  let isGone = false;
  let cancelFlush: (() => void) | null = null;

  /** The answer has nowhere to go (its conversation was deleted meanwhile): the log says why. */
  const gone = (reason: string): null => {
    isGone = true;
    deps.log.warn('chat', `answer of ${place.requestId} not stored: ${reason}`);
    return null;
  };
  const attempt = <T>(write: () => T): T | null => {
    if (isGone) return null;
    try {
      return write();
    } catch (error) {
      return gone(reasonOf(error));
    }
  };
  const store = (content: string, ending: Ending): void => {
    const { finishReason, ...rest } = ending;
    const patch = { content, finishReason, meta: { ...meta, ...rest } };
    const id = messageId;
    if (id !== null) {
      if (attempt(() => chats.updateAnswer(id, patch)) === false)
        gone('its row is gone (conversation deleted)');
      return;
    }
    messageId = attempt(() => {
      const answer = chats.addMessage({
        conversationId: place.conversationId,
        parentId: place.userMessageId,
        role: 'assistant',
        requestId: place.requestId,
        ...patch,
      });
      const leaf = chats.getConversation(place.conversationId)?.leafMessageId ?? null;
      if (leaf === place.leafAtStart || leaf === place.userMessageId)
        chats.setLeaf(place.conversationId, answer.messageId);
      return answer.messageId;
    });
  };
  const checkpoint = (): void => {
    cancelFlush = null;
    store(text, { finishReason: null, errorMessage: null, isCheckpoint: true });
  };

  return {
    onText(piece) {
      text += piece;
      // Never written inside the chunk's own turn: the chunk's return ends the server's TTFT.
      cancelFlush ??= clock.callAt(clock.now() + HISTORY_LIMITS.flushIntervalMs, checkpoint);
    },
    finish(outcome) {
      cancelFlush?.();
      cancelFlush = null;
      const reason = outcome.timeline.finishReason;
      const isFailed = reason === 'error' || reason === 'rejected' || reason === 'deadline';
      store(outcome.text, {
        finishReason: storedFinishOf(reason),
        errorMessage: isFailed ? (outcome.errorMessage ?? outcome.timeline.errorMessage) : null,
        isCheckpoint: false,
      });
      return isGone ? null : messageId;
    },
  };
}
