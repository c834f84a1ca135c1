import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { submitAndTally } from '../../../support/outcome-tally';
import { expectNothingHeld } from '../../../support/runtime';
import { busyScriptedRuntime, scriptedRequest, scriptedRuntime } from '../../../support/scripted-runtime';

// Admission under the K/V budget, through the scripted runner on the manual clock: a prompt
// that can never fit must not wait (and block its slot's queue) forever; one that fits only
// when nothing else runs waits exactly for that.

const PAGE_SIZE = 16;

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

/** The token count of `text` on the bundled model. */
function numTokensOf(runtime: Runtime, text: string): number {
  const model = runtime.catalogue.resolve(BUNDLED_MODEL_ID);
  if (model instanceof Error) throw model;
  return model.folder.tokenizer.encode(text).length;
}

/**
 * A prompt of at least `minTokens` tokens whose K/V plus `numSpareTokens` more stays inside the
 * pages its admission takes (so it can decode that far without needing another page).
 */
function promptWithSpareTokens(runtime: Runtime, minTokens: number, numSpareTokens: number) {
  for (let words = minTokens; ; words++) {
    const text = 'and the sea was calm '.repeat(words / 5 + 1).slice(0, words * 4);
    const numTokens = numTokensOf(runtime, text);
    const numPages = Math.ceil((numTokens + 1) / PAGE_SIZE);
    if (numTokens >= minTokens && numTokens + 1 + numSpareTokens <= numPages * PAGE_SIZE)
      return { text, numTokens, numPages };
  }
}

describe('admission under the K/V budget', () => {
  it('refuses a prompt whose K/V is larger than the whole budget at once, before loading anything, and serves the request behind it', async () => {
    const built = await scriptedRuntime({ pageSize: PAGE_SIZE, kvBudgetBytes: 1 });
    runtime = built.runtime;
    await runtime.reconfigure({ kvBudgetBytes: 4 * built.pageBytes });
    const long = promptWithSpareTokens(runtime, 100, 0);
    const refused = submitAndTally(runtime, scriptedRequest({ prompt: { kind: 'text', text: long.text } }));
    const behind = submitAndTally(runtime, scriptedRequest({ prompt: { kind: 'text', text: 'Hello' } }));
    const outcome = await refused.done;
    expect(outcome).toMatchObject({
      errorCode: 'invalid_input',
      errorMessage: expect.stringMatching(
        new RegExp(
          `^the prompt's K/V \\(${long.numTokens} tokens: .+ MB\\) is larger than the whole K/V budget \\(.+ MB\\); raise the K/V budget or shorten the prompt$`,
        ),
      ),
    });
    const timeline = checkTimeline(outcome.timeline);
    expect(timeline.finishReason).toBe('rejected');
    expect(timeline.e2eMs).toBe(0);
    expect((await behind.done).timeline.finishReason).toBe('length');
    expect(refused.outcomes).toHaveLength(1);
    expectNothingHeld(runtime);
  });

  it('runs a prompt that fits only when the budget is empty as soon as the running request leaves, and the queue behind it follows', async () => {
    const built = await scriptedRuntime({ pageSize: PAGE_SIZE, maxSeats: 4 });
    runtime = built.runtime;
    const big = promptWithSpareTokens(runtime, 60, 4);
    await runtime.reconfigure({ kvBudgetBytes: big.numPages * built.pageBytes });
    await runtime.prefetch(BUNDLED_MODEL_ID);
    const running = submitAndTally(
      runtime,
      scriptedRequest({ prompt: { kind: 'text', text: 'Hello' }, maxTokens: 5 }),
    );
    const waiting = submitAndTally(
      runtime,
      scriptedRequest({ prompt: { kind: 'text', text: big.text }, maxTokens: 2 }),
    );
    const behind = submitAndTally(
      runtime,
      scriptedRequest({ prompt: { kind: 'text', text: 'Hi' }, maxTokens: 2 }),
    );
    const [a, b, c] = (await Promise.all([running.done, waiting.done, behind.done])).map((o) =>
      checkTimeline(o.timeline),
    );
    expect([a!.finishReason, b!.finishReason, c!.finishReason]).toEqual(['length', 'length', 'length']);
    // All three arrived together: the big one queued exactly while the first ran, the last exactly while both did.
    expect(b!.parts.queue).toBe(a!.e2eMs);
    expect(c!.parts.queue).toBe(b!.arrivedAt + b!.e2eMs - c!.arrivedAt);
    expect(b!.numPromptTokens).toBe(big.numTokens);
    expectNothingHeld(runtime);
  });

  it('ends a queued head at its next plan when the budget shrinks below it for good, and keeps serving', async () => {
    const { runner, running, ...built } = await busyScriptedRuntime({ pageSize: PAGE_SIZE });
    runtime = built.runtime;
    const long = promptWithSpareTokens(runtime, 100, 0);
    const queued = submitAndTally(runtime, scriptedRequest({ prompt: { kind: 'text', text: long.text } }));
    await runtime.reconfigure({ kvBudgetBytes: 4 * built.pageBytes });
    runner.resume();
    const outcome = await queued.done;
    expect(outcome).toMatchObject({
      errorCode: 'invalid_input',
      errorMessage: expect.stringMatching(/larger than the whole K\/V budget/),
    });
    expect(outcome.timeline.finishReason).toBe('rejected');
    expect((await running.done).timeline.finishReason).toBe('length');
    expect([running.outcomes.length, queued.outcomes.length]).toEqual([1, 1]);
    expectNothingHeld(runtime);
  });
});
