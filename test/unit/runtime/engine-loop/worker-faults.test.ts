import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import type { SlotEvent } from '../../../../src-main/runtime/slots/slot-types';
import type { StepJob } from '../../../../src-main/runtime/slot-worker/protocol';
import { checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { submitAndTally } from '../../../support/outcome-tally';
import type { Heard } from '../../../support/outcome-tally';
import { expectNothingHeld } from '../../../support/runtime';
import { scriptedRequest, scriptedRuntime } from '../../../support/scripted-runtime';
import type { ScriptedRunner, StepPhase } from '../../../support/scripted-runner';

// A slot worker dying on its own, through the scripted runner on the manual clock: at each
// phase of a step and with several sequences seated. The runtime must keep serving, every
// request must hear exactly one finish with the reason, and nothing may stay held.

const CRASH = 'the slot worker failed: scripted crash';
const WORKER_STOPPED = `the model's worker stopped (${CRASH}); the next request reloads it`;

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

async function warmRuntime(maxSeats: number) {
  const built = await scriptedRuntime({ maxSeats });
  runtime = built.runtime;
  const events: SlotEvent[] = [];
  runtime.onSlotEvent((event) => events.push(event));
  await runtime.prefetch(BUNDLED_MODEL_ID);
  return { ...built, events };
}

/** Holds the step matching `when` at `phase`, submits the requests, and kills the worker there. */
async function dieAt(
  runtime: Runtime,
  runner: ScriptedRunner,
  phase: StepPhase,
  when: (job: StepJob) => boolean,
  requests: Parameters<typeof scriptedRequest>[0][],
): Promise<Heard[]> {
  runner.holdNextStepAt(phase, when);
  const heard = requests.map((r) => submitAndTally(runtime, scriptedRequest(r)));
  await runner.whenHeld();
  runner.die();
  await Promise.all(heard.map((h) => h.done));
  // Anything a second finish would take (a late step reply, a queued iteration) has run by now.
  await sleep(5);
  return heard;
}

/** Every request heard exactly one finish: an error naming the dead worker, with a timeline that checks. */
function expectOneErrorFinishEach(heard: readonly Heard[]): void {
  for (const h of heard) {
    expect(h.outcomes, h.requestId).toHaveLength(1);
    const [outcome] = h.outcomes;
    expect(outcome).toMatchObject({ errorMessage: WORKER_STOPPED, errorCode: 'internal' });
    expect(checkTimeline(outcome!.timeline).finishReason).toBe('error');
  }
}

/** The slot failed once with the reason, and the next request reloaded it on a fresh worker. */
async function expectServingAgain(
  runtime: Runtime,
  runners: readonly ScriptedRunner[],
  events: readonly SlotEvent[],
): Promise<void> {
  expect(events.filter((e) => e.toStatus === 'failed')).toEqual([
    expect.objectContaining({ cause: 'error', reason: CRASH }),
  ]);
  expectNothingHeld(runtime);
  const next = submitAndTally(runtime, scriptedRequest());
  const outcome = await next.done;
  expect(outcome.timeline).toMatchObject({ finishReason: 'length', isColdSlot: true });
  expect(runners).toHaveLength(2);
  expect(runtime.slots()[0]!.status).toBe('resident');
  expectNothingHeld(runtime);
}

describe('a slot worker that dies', () => {
  it.each([1, 2, 4])(
    'during decode with %i sequences seated: each ends once with an error naming the reason, and the next request reloads the slot',
    async (numSeated) => {
      const { runtime, runners, events } = await warmRuntime(4);
      const heard = await dieAt(
        runtime,
        runners[0]!,
        'decode',
        (job) => job.decode?.rows.length === numSeated,
        Array.from({ length: numSeated }, () => ({ maxTokens: 50 })),
      );
      expect(heard.every((h) => h.numChunks >= 1)).toBe(true);
      expectOneErrorFinishEach(heard);
      await expectServingAgain(runtime, runners, events);
    },
  );

  it('during prefill, with one sequence decoding beside it and one waiting for a seat: all three end once', async () => {
    const { runtime, runners, events } = await warmRuntime(2);
    const heard = await dieAt(
      runtime,
      runners[0]!,
      'prefill',
      (job) => job.prefill !== null && job.decode !== null,
      [{ maxTokens: 50 }, { maxTokens: 50 }, { maxTokens: 50 }],
    );
    expect(heard.map((h) => h.numChunks)).toEqual([expect.any(Number), 0, 0]);
    expect(heard[0]!.numChunks).toBeGreaterThan(0);
    expectOneErrorFinishEach(heard);
    await expectServingAgain(runtime, runners, events);
  });

  it("while copying a conversation's cached pages into its past: the pages of the dead session are dropped", async () => {
    const { runtime, runners, events } = await warmRuntime(4);
    const history =
      'It is a truth universally acknowledged, that a single man in possession of a good fortune';
    const first = submitAndTally(runtime, scriptedRequest({ prompt: { kind: 'text', text: history } }));
    await first.done;
    expect(runtime.pageSummary().numPages).toBeGreaterThan(0);
    const heard = await dieAt(
      runtime,
      runners[0]!,
      'copy',
      (job) => (job.prefill?.cachedPages?.length ?? 0) > 0,
      [{ prompt: { kind: 'text', text: `${history}, must be in want of a wife.` } }],
    );
    expectOneErrorFinishEach(heard);
    expect(runtime.pageSummary()).toMatchObject({ numPages: 0, numHeldPages: 0, bytes: 0 });
    await expectServingAgain(runtime, runners, events);
  });

  it('between steps, while idle: nothing was running, so only the slot fails and the next request reloads it', async () => {
    const { runtime, runners, events } = await warmRuntime(4);
    await submitAndTally(runtime, scriptedRequest()).done;
    runners[0]!.die();
    await expectServingAgain(runtime, runners, events);
  });
});
