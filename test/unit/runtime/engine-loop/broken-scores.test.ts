import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { submitAndTally } from '../../../support/outcome-tally';
import { expectNothingHeld } from '../../../support/runtime';
import { scriptedRequest, scriptedRuntime } from '../../../support/scripted-runtime';

// Broken weights give NaN scores: the answer must end in an error saying so, not in
// `maxTokens` empty tokens with finish `length`.

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

describe('an answer whose scores turn NaN', () => {
  it.each([
    { from: 0, when: 'at its first token', numTokens: 0 },
    { from: 2, when: 'mid-answer', numTokens: 2 },
  ])(
    'ends with finish `error` and the plain reason $when, keeping no token after',
    async ({ from, numTokens }) => {
      const built = await scriptedRuntime();
      runtime = built.runtime;
      await runtime.prefetch(BUNDLED_MODEL_ID);
      built.runners[0]!.nanScoresFrom = from;
      const heard = submitAndTally(runtime, scriptedRequest({ maxTokens: 8 }));
      const outcome = await heard.done;
      expect(outcome).toMatchObject({
        errorMessage: 'the model produced NaN scores: its weights are broken',
        errorCode: 'internal',
      });
      const timeline = checkTimeline(outcome.timeline);
      expect(timeline.finishReason).toBe('error');
      expect(timeline.numOutputTokens).toBe(numTokens);
      expect(heard.outcomes).toHaveLength(1);
      expectNothingHeld(runtime);
    },
  );
});
