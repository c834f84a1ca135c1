import type { SteppedReply } from './protocol';
import type { StepExecutor } from './step-executor';
import { markStep } from './step-trace';

/** What posting a step's reply needs of a slot's executor. */
export type AheadRunner = Pick<StepExecutor, 'isRunOnThisThread' | 'runAhead' | 'tidyWhenIdle'>;

/**
 * Posts a step's reply (`post`) and runs the next decode step ahead, in the order that costs the
 * token least. A forward on the libuv pool starts first: posting wakes the main thread, which
 * takes a core for a while (docs/benchmarks.md), and the step goes on beside it instead of
 * after. A forward on this thread would hold the reply back a whole step, so the reply goes
 * first. The step run ahead only touches state the next job reads; page copies wait for that job
 * (they would take the core the main thread needs to flush the token) unless nothing ran ahead.
 */
export function postStepped(executor: AheadRunner | null, reply: SteppedReply, post: () => void): void {
  const isAheadFirst = executor !== null && !executor.isRunOnThisThread;
  if (isAheadFirst) executor.runAhead();
  markStep('replyPosted');
  post();
  markStep('replySent');
  if (!isAheadFirst) executor?.runAhead();
  executor?.tidyWhenIdle(reply);
}
