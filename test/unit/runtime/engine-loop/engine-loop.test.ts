import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { submitAndTally } from '../../../support/outcome-tally';
import { busyScriptedRuntime, scriptedRequest, scriptedRuntime } from '../../../support/scripted-runtime';

// The arrival wake (WakeNotice): a request's slot worker is told at submit, before routing, so
// its thread wakes while the main thread routes and plans instead of after the job is posted.

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

describe('waking the slot worker at arrival', () => {
  it('wakes an idle resident slot once, at submit, before its job is posted', async () => {
    const built = await scriptedRuntime();
    runtime = built.runtime;
    await runtime.prefetch(BUNDLED_MODEL_ID);
    const runner = built.runners[0]!;
    const numJobsBefore = runner.jobs.length;
    const heard = submitAndTally(runtime, scriptedRequest());
    expect(runner.numWakes).toBe(1);
    expect(runner.jobs.length).toBe(numJobsBefore);
    expect((await heard.done).timeline.finishReason).toBe('length');
    expect(runner.numWakes).toBe(1);
  });

  it('wakes nothing while the slot is running a step (its worker is awake)', async () => {
    const built = await busyScriptedRuntime();
    runtime = built.runtime;
    const numWakesBefore = built.runner.numWakes;
    const second = submitAndTally(runtime, scriptedRequest());
    expect(built.runner.numWakes).toBe(numWakesBefore);
    built.runner.resume();
    expect((await built.running.done).timeline.finishReason).toBe('length');
    expect((await second.done).timeline.finishReason).toBe('length');
  });

  it('wakes nothing for a model whose slot is not loaded (its load comes first)', async () => {
    const built = await scriptedRuntime();
    runtime = built.runtime;
    const heard = submitAndTally(runtime, scriptedRequest());
    expect((await heard.done).timeline.finishReason).toBe('length');
    expect(built.runners.every((runner) => runner.numWakes === 0)).toBe(true);
  });
});
