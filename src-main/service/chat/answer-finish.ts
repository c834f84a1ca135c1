import type { MessageRecord } from '../../history/queries/chat-records';
import type { FinishReason, RecordedFinishReason, Timeline } from '../../telemetry/timeline/schema';
import type { MessageMeta } from '../contract/chat-schemas';

/**
 * The finish an answer is shown and exported with (the one declaration both use): the finish its
 * row stored; else `interrupted` for a checkpoint whose request no longer runs (the app stopped
 * mid-answer); else its timeline's (one not stored yet, or brought by an import); else null.
 */
export function answerFinishOf(
  m: MessageRecord,
  meta: MessageMeta,
  timeline: Timeline | null | undefined,
  isRunning: (requestId: string) => boolean,
): FinishReason | null {
  if (m.finishReason !== null) return m.finishReason;
  const isInterrupted = meta.isCheckpoint && !(m.requestId !== null && isRunning(m.requestId));
  return isInterrupted ? 'interrupted' : (timeline?.finishReason ?? null);
}

/**
 * The finish an answer's row stores for the finish it ended (or was imported) with: an
 * interrupted answer is stored as what it is, a checkpoint with no finish (see answerFinishOf).
 */
export function storedFinishOf(reason: FinishReason | null): RecordedFinishReason | null {
  return reason === 'interrupted' ? null : reason;
}
