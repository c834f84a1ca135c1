import type { FinishReason } from '../../../src-main/telemetry/timeline/schema';

/** How an answer ended, in words (the finish reason stays in data-value for tools). */
export const FINISH_LABELS: Readonly<Record<FinishReason, string>> = {
  stop: 'finished',
  length: 'reached the token limit',
  cancelled: 'stopped',
  deadline: 'ran out of time',
  rejected: 'refused',
  error: 'failed',
  interrupted: 'interrupted',
};

/** What each ending means, on hover. */
export const FINISH_EXPLANATIONS: Readonly<Record<FinishReason, string>> = {
  stop: 'The model ended its turn (or a stop string matched).',
  length: 'The answer used all its max tokens, or the context ran out.',
  cancelled: 'Stopped by you (Stop or Esc) or because the client went away.',
  deadline: 'The request passed its deadline before it finished.',
  rejected: 'The request was refused before it ran (full queue, bad input).',
  error: 'Something failed while it ran; the message below says what.',
  interrupted:
    'The app stopped (closed by force or crashed) while this answer was written; the text is what had arrived.',
};
