import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectGeneration } from '../../../../src-main/runtime/collect';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import {
  BURST_TARGET_MS,
  MAX_BURST_STEPS,
  burstStepsOf,
  nextPaceOf,
} from '../../../../src-main/runtime/engine-loop/decode-burst';
import type { DecodeOutcome } from '../../../../src-main/runtime/slot-worker/protocol';
import { checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { submitAndTally } from '../../../support/outcome-tally';
import { expectNothingHeld } from '../../../support/runtime';
import { SCRIPTED_TIMES as TIMES, scriptedRequest, scriptedRuntime } from '../../../support/scripted-runtime';

// Decode bursts: a job runs several decode steps back to back so the main thread wakes once per
// burst. Through the scripted runner on the manual clock, every gap has one exact value.

let runtime: Runtime | null = null;
afterEach(async () => {
  vi.unstubAllEnvs();
  await runtime?.close();
  runtime = null;
});

/** Steps of 5 ms: five fit in a burst. */
const STEPS_PER_BURST = Math.floor(BURST_TARGET_MS / TIMES.decodeMs);
/** A job's gap: the previous reply's way back, the page copies, one decode forward. */
const JOB_GAP_MS = TIMES.replyMs + TIMES.copyMs + TIMES.decodeMs;

const step = (startedAt: number, logitsAt: number): DecodeOutcome => ({
  startedAt,
  logitsAt,
  rows: [],
  pages: [],
});

const PAGE_SIZE = 16;

/** A text prompt whose tokens plus `numMore` fill whole pages of PAGE_SIZE exactly. */
function promptFillingPagesWith(runtime: Runtime, numMore: number) {
  const model = runtime.catalogue.resolve(BUNDLED_MODEL_ID);
  if (model instanceof Error) throw model;
  for (let words = 20; ; words++) {
    const text = 'and the sea was calm '.repeat(words / 5 + 1).slice(0, words * 4);
    const numTokens = model.folder.tokenizer.encode(text).length;
    if ((numTokens + numMore) % PAGE_SIZE === 0) return { text, numPages: (numTokens + numMore) / PAGE_SIZE };
  }
}

async function warmRuntime(maxSeats = 4) {
  const built = await scriptedRuntime({ maxSeats });
  runtime = built.runtime;
  await runtime.prefetch(BUNDLED_MODEL_ID);
  return { runtime, runner: built.runners[0]! };
}

describe('how many steps a burst runs', () => {
  it('fits as many timed steps as the burst target holds, between 1 and the cap', () => {
    expect(STEPS_PER_BURST).toBe(5);
    expect(burstStepsOf(null)).toBe(1);
    expect(burstStepsOf(TIMES.decodeMs)).toBe(5);
    expect(burstStepsOf(BURST_TARGET_MS * 2)).toBe(1);
    expect(burstStepsOf(0.01)).toBe(MAX_BURST_STEPS);
  });

  it('runs one step per job with FF_DECODE_BURST=off', () => {
    vi.stubEnv('FF_DECODE_BURST', 'off');
    expect(burstStepsOf(1)).toBe(1);
  });

  it('smooths each step of a reply into the pace, the first step alone setting it', () => {
    expect(nextPaceOf(null, [])).toBeNull();
    expect(nextPaceOf(null, [step(10, 14)])).toBe(4);
    expect(nextPaceOf(4, [step(0, 14), step(14, 28)])).toBeCloseTo(4 + 0.3 * 10 + 0.3 * (14 - 7), 10);
  });
});

describe('a request decoding in bursts', () => {
  it('runs one job per burst once a step is timed, and each token keeps its own gap', async () => {
    const { runtime, runner } = await warmRuntime();
    const maxTokens = 2 + 2 * STEPS_PER_BURST;
    const t = checkTimeline((await collectGeneration(runtime, scriptedRequest({ maxTokens }))).timeline);
    expect(t.numOutputTokens).toBe(maxTokens);
    const stepsPerJob = runner.jobs.map((job) => job.decode?.numSteps ?? (job.decode ? 1 : 0));
    expect(stepsPerJob).toEqual([0, 1, STEPS_PER_BURST, STEPS_PER_BURST]);
    // No job is planned past the last token, and the last burst leaves nothing to run ahead.
    expect(runner.jobs.at(-1)!.decode!.mayContinue).toBe(false);
    const burstGaps = [JOB_GAP_MS, ...Array<number>(STEPS_PER_BURST - 1).fill(TIMES.decodeMs)];
    expect(t.itlMs).toEqual([JOB_GAP_MS, ...burstGaps, ...burstGaps]);
  });

  it('runs one step per job with FF_DECODE_BURST=off', async () => {
    vi.stubEnv('FF_DECODE_BURST', 'off');
    const { runtime, runner } = await warmRuntime();
    const t = checkTimeline((await collectGeneration(runtime, scriptedRequest({ maxTokens: 5 }))).timeline);
    expect(runner.jobs.every((job) => job.decode?.numSteps === undefined)).toBe(true);
    expect(t.itlMs).toEqual([JOB_GAP_MS, JOB_GAP_MS, JOB_GAP_MS, JOB_GAP_MS]);
  });

  it('runs no burst while another request waits for the slot, then bursts once it runs alone', async () => {
    const { runtime, runner } = await warmRuntime(1);
    const first = scriptedRequest({ maxTokens: STEPS_PER_BURST + 3 });
    const second = scriptedRequest({ maxTokens: STEPS_PER_BURST + 3 });
    await Promise.all([collectGeneration(runtime, first), collectGeneration(runtime, second)]);
    const stepsOf = (requestId: string) =>
      runner.jobs
        .filter((job) => job.decode?.rows.some((row) => row.seqId === requestId))
        .map((job) => job.decode!.numSteps ?? 1);
    expect(stepsOf(first.requestId)).toEqual(Array<number>(STEPS_PER_BURST + 2).fill(1));
    expect(stepsOf(second.requestId)).toEqual([STEPS_PER_BURST, 2]);
  });

  it('runs single steps when a burst’s K/V would not fit the budget, even after evicting cached pages', async () => {
    const built = await scriptedRuntime({ pageSize: PAGE_SIZE });
    runtime = built.runtime;
    await collectGeneration(runtime, scriptedRequest({ maxTokens: 4 })); // times a step: bursts are due
    // A prompt whose K/V and the next step's exactly fill whole pages: one token more takes a page.
    const text = promptFillingPagesWith(runtime, 2);
    await runtime.reconfigure({ kvBudgetBytes: text.numPages * built.pageBytes });
    const request = scriptedRequest({ prompt: { kind: 'text', text: text.text }, maxTokens: 8 });
    const t = checkTimeline((await collectGeneration(runtime, request)).timeline);
    const jobs = built.runners[0]!.jobs.filter((job) =>
      job.decode?.rows.some((row) => row.seqId === request.requestId),
    );
    expect(jobs.map((job) => job.decode!.numSteps ?? 1)).toEqual([1]);
    expect(t.finishReason).toBe('length');
    expect(t.numPreemptions).toBe(0);
    expectNothingHeld(runtime);
  });

  it('still bursts when the budget is full of cached pages nobody holds, evicting one for its room', async () => {
    const built = await scriptedRuntime({ pageSize: PAGE_SIZE });
    runtime = built.runtime;
    const text = promptFillingPagesWith(runtime, 2);
    // Earlier answers leave pages in the RAM tier that nobody holds.
    for (const word of ['one', 'two', 'three'])
      await collectGeneration(
        runtime,
        scriptedRequest({ prompt: { kind: 'text', text: `${word} ${text.text}` } }),
      );
    const cachedBytes = runtime.pageSummary().bytes;
    expect(cachedBytes).toBeGreaterThan(0);
    // Room for the cached pages and the prompt's next step, not for a burst's: one page short.
    await runtime.reconfigure({ kvBudgetBytes: cachedBytes + text.numPages * built.pageBytes });
    const request = scriptedRequest({
      prompt: { kind: 'text', text: text.text },
      maxTokens: STEPS_PER_BURST + 2,
    });
    const t = checkTimeline((await collectGeneration(runtime, request)).timeline);
    const jobs = built.runners[0]!.jobs.filter((job) =>
      job.decode?.rows.some((row) => row.seqId === request.requestId),
    );
    expect(jobs.map((job) => job.decode!.numSteps ?? 1)).toEqual([STEPS_PER_BURST, 1]);
    expect([t.finishReason, t.numOutputTokens, t.numPreemptions]).toEqual(['length', STEPS_PER_BURST + 2, 0]);
    expect(runtime.pageSummary().bytes).toBeLessThan(cachedBytes + text.numPages * built.pageBytes);
    expectNothingHeld(runtime);
  });

  it('ends a burst after its current step when a request arrives, so the newcomer waits one step, not a burst', async () => {
    const { runtime, runner } = await warmRuntime();
    runner.holdNextStepAt('decode', (job) => (job.decode?.numSteps ?? 1) > 1);
    const first = submitAndTally(runtime, scriptedRequest({ maxTokens: 8 }));
    await runner.whenHeld();
    const burstJob = runner.jobs.length - 1;
    const second = submitAndTally(runtime, scriptedRequest({ maxTokens: 3 }));
    await vi.waitFor(() => expect(runtime.queueSummary().numWaiting).toBe(1));
    runner.resume();
    const [a, b] = (await Promise.all([first.done, second.done])).map((o) => checkTimeline(o.timeline));
    expect(runner.jobs[burstJob]!.decode!.numSteps).toBe(STEPS_PER_BURST);
    expect(runner.numStepsRun[burstJob]).toBe(1);
    expect([a!.numOutputTokens, b!.numOutputTokens]).toEqual([8, 3]);
    // Its seat came with the next job: one decode step and the reply after it arrived.
    expect(b!.parts.queue).toBe(TIMES.decodeMs + TIMES.replyMs);
    expectNothingHeld(runtime);
  });

  it('keeps no token of a burst whose request was cancelled inside it, and holds nothing after', async () => {
    const { runtime, runner } = await warmRuntime();
    runner.holdNextStepAt('decode', (job) => (job.decode?.numSteps ?? 1) > 1);
    const request = scriptedRequest({ maxTokens: 8 });
    const heard = submitAndTally(runtime, request);
    await runner.whenHeld();
    const burstJob = runner.jobs.length - 1;
    expect(runtime.cancel(request.requestId)).toBe(true);
    runner.resume();
    const outcome = await heard.done;
    const t = checkTimeline(outcome.timeline);
    expect(t.finishReason).toBe('cancelled');
    // The prefill's token and the one-step job's: the burst's came after the cancel, which cut it.
    expect(t.numOutputTokens).toBe(2);
    await vi.waitFor(() => expect(runner.numStepsRun[burstJob]).toBe(1));
    expect(heard.outcomes).toHaveLength(1);
    await vi.waitFor(() => expectNothingHeld(runtime));
  });
});
