import { describe, expect, it } from 'vitest';
import { stepCyclesOf } from '../../../bench/step-profile/cycles';
import type { StepCycle } from '../../../bench/step-profile/cycles';
import type { StepMark, ThreadTrace } from '../../../src-main/runtime/slot-worker/step-trace';

const trace = (
  thread: ThreadTrace['thread'],
  marks: Array<[StepMark, number]>,
  gc: number[] = [],
): ThreadTrace => ({
  thread,
  marks: marks.map(([name, at]) => ({ name, at })),
  gcPauses: gc.map((startAt) => ({ startAt, durationMs: 0.5 })),
});

const workerSum = (c: StepCycle) =>
  c.workerBeforeRunMs + c.runMs + c.workerAfterRunMs + c.waitForJobMs + c.workerReplyMs;

describe('stepCyclesOf', () => {
  it('splits each cycle with one run ahead into worker parts that sum to it, and leaves out the ones without', () => {
    // Each run ahead starts once its reply is built, before the reply is posted (the post runs
    // beside it). Job 0: a prefill, its run inside the job (left out). Job 1 arrives before the run ahead
    // executes (a true hop); job 2 only after its token (the worker waited for it).
    const worker = trace(
      'worker',
      [
        ['jobReceived', 0],
        ['runStarted', 1],
        ['runEnded', 9],
        ['sampled', 9.5],
        ['replyBuilt', 10],
        ['runStarted', 10.25],
        ['replyPosted', 10.25],
        ['replySent', 10.375],
        ['jobReceived', 10.75],
        ['runEnded', 17],
        ['sampled', 17.5],
        ['replyBuilt', 18],
        ['runStarted', 18.25],
        ['replyPosted', 18.25],
        ['replySent', 18.375],
        ['runEnded', 25],
        ['sampled', 25.5],
        ['jobReceived', 27],
        ['replyBuilt', 27.5],
        ['replyPosted', 27.5],
      ],
      [20],
    );
    const main = trace('main', [
      ['jobPosted', -0.1],
      ['replyReceived', 10.5],
      ['replyApplied', 10.5],
      ['jobPosted', 10.5],
      ['replyReceived', 18.75],
      ['replyApplied', 19],
      ['jobPosted', 26.5],
      ['replyReceived', 28],
      ['replyApplied', 28.5],
    ]);
    const cycles = stepCyclesOf(main, worker);
    expect(cycles).toEqual([
      {
        workerBeforeRunMs: 0.25,
        postMessageMs: 0.125,
        runMs: 6.75,
        workerAfterRunMs: 0.5,
        waitForJobMs: 0,
        workerReplyMs: 0.5,
        cycleMs: 8,
        hopToMainMs: 0.25,
        mainApplyMs: 0,
        mainPlanMs: 0,
        hopToWorkerMs: 0.25,
        mainGcMs: 0,
        workerGcMs: 0,
      },
      {
        workerBeforeRunMs: 0.25,
        postMessageMs: 0.125,
        runMs: 6.75,
        workerAfterRunMs: 0.5,
        waitForJobMs: 1.5,
        workerReplyMs: 0.5,
        cycleMs: 9.5,
        hopToMainMs: 0.5,
        mainApplyMs: 0.25,
        mainPlanMs: 7.5,
        hopToWorkerMs: 0.5,
        mainGcMs: 0,
        workerGcMs: 0.5,
      },
    ]);
    for (const c of cycles) expect(workerSum(c)).toBeCloseTo(c.cycleMs, 9);
  });
});
