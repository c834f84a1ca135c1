import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { submitAndTally } from '../../../support/outcome-tally';
import { expectNothingHeld } from '../../../support/runtime';
import { busyScriptedRuntime, scriptedRequest } from '../../../support/scripted-runtime';

// A request's deadline runs on a timer of its own: it must end at its deadline even while
// nothing else wakes the engine loop (here a long forward holds the only seat).

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

async function busySlot() {
  const built = await busyScriptedRuntime();
  runtime = built.runtime;
  return built;
}

describe('request deadlines', () => {
  it('end a queued request exactly at its deadline while a long step holds the loop', async () => {
    const { runtime, clock, runner, running } = await busySlot();
    const queued = submitAndTally(runtime, scriptedRequest({ deadlineMs: 2_000 }));
    clock.advance(1_999);
    await sleep(5);
    expect(queued.outcomes).toHaveLength(0);
    clock.advance(1);
    const outcome = await queued.done;
    const timeline = checkTimeline(outcome.timeline);
    expect(timeline).toMatchObject({ finishReason: 'deadline', e2eMs: 2_000 });
    expect(outcome.errorMessage).toBe('the request passed its deadline');
    expect(running.outcomes).toHaveLength(0);
    runner.resume();
    expect((await running.done).timeline.finishReason).toBe('length');
    expectNothingHeld(runtime);
  });

  it("end a running request at its deadline inside its step, and a finished request's timer never fires", async () => {
    const { runtime, clock, runner, running } = await busySlot();
    runner.resume();
    await running.done;
    const early = submitAndTally(runtime, scriptedRequest({ deadlineMs: 5_000, maxTokens: 2 }));
    await early.done;
    runner.holdNextStepAt('decode');
    const late = submitAndTally(runtime, scriptedRequest({ deadlineMs: 1_000, maxTokens: 50 }));
    await runner.whenHeld();
    clock.advance(10_000);
    expect(checkTimeline((await late.done).timeline).finishReason).toBe('deadline');
    runner.resume();
    await sleep(5);
    expect([early.outcomes.length, late.outcomes.length]).toEqual([1, 1]);
    expect(early.outcomes[0]!.timeline.finishReason).toBe('length');
    expectNothingHeld(runtime);
  });
});
