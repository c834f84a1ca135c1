import { describe, expect, it } from 'vitest';
import { postStepped } from '../../../../src-main/runtime/slot-worker/post-stepped';
import type { AheadRunner } from '../../../../src-main/runtime/slot-worker/post-stepped';
import type { SteppedReply } from '../../../../src-main/runtime/slot-worker/protocol';

const REPLY: SteppedReply = { type: 'stepped', prefill: null, decode: null };

/** An executor that writes down what was asked of it, in order. */
function recorder(isRunOnThisThread: boolean): { executor: AheadRunner; calls: string[] } {
  const calls: string[] = [];
  const executor: AheadRunner = {
    isRunOnThisThread,
    runAhead: () => void calls.push('runAhead'),
    tidyWhenIdle: () => void calls.push('tidy'),
  };
  return { executor, calls };
}

describe('postStepped', () => {
  it('posts the reply before a step that holds this thread runs ahead, so no token waits a step', () => {
    const { executor, calls } = recorder(true);
    postStepped(executor, REPLY, () => calls.push('post'));
    expect(calls).toEqual(['post', 'runAhead', 'tidy']);
  });

  it('starts a step on the pool before posting, so it runs beside the main thread waking', () => {
    const { executor, calls } = recorder(false);
    postStepped(executor, REPLY, () => calls.push('post'));
    expect(calls).toEqual(['runAhead', 'post', 'tidy']);
  });

  it('still posts the reply when the slot has no executor', () => {
    const calls: string[] = [];
    postStepped(null, REPLY, () => calls.push('post'));
    expect(calls).toEqual(['post']);
  });
});
