import { describe, expect, it } from 'vitest';
import { stepCyclesOf } from '../../../bench/step-profile/cycles';
import type { StepMark, ThreadTrace } from '../../../src-main/runtime/engine/step-trace';

const trace = (
  thread: ThreadTrace['thread'],
  marks: Array<[StepMark, number]>,
  gc: number[] = [],
): ThreadTrace => ({
  thread,
  marks: marks.map(([name, at]) => ({ name, at })),
  gcPauses: gc.map((startAt) => ({ startAt, durationMs: 0.5 })),
});

describe('stepCyclesOf', () => {
  it('splits each cycle with one run ahead into worker parts that sum to it, and leaves out cycles without one', () => {
    // Job 0 is a prefill (its run is inside the job, none ahead); job 1 decodes with one run ahead after its reply.
    const worker = trace(
      'worker',
      [
        ['jobReceived', 0],
        ['runStarted', 1],
        ['runEnded', 9],
        ['sampled', 9.5],
        ['replyPosted', 10],
        ['jobReceived', 12],
        ['replyPosted', 13],
        ['runStarted', 13.25],
        ['runEnded', 20],
        ['sampled', 20.5],
        ['jobReceived', 21],
        ['replyPosted', 21.5],
      ],
      [15],
    );
    const main = trace('main', [
      ['jobPosted', -0.1],
      ['replyReceived', 10.5],
      ['replyApplied', 11],
      ['jobPosted', 11.5],
      ['replyReceived', 13.5],
      ['replyApplied', 14],
      ['jobPosted', 14.5],
      ['replyReceived', 22],
      ['replyApplied', 22.5],
    ]);
    const cycles = stepCyclesOf(main, worker);
    expect(cycles).toEqual([
      {
        workerBeforeRunMs: 0.25,
        runMs: 6.75,
        workerAfterRunMs: 0.5,
        waitForJobMs: 0.5,
        workerJobMs: 0.5,
        cycleMs: 8.5,
        hopToMainMs: 0.5,
        mainApplyMs: 0.5,
        mainPlanMs: 0.5,
        // Posted while the worker still ran ahead: it queued, no hop to report.
        hopToWorkerMs: null,
        mainGcMs: 0,
        workerGcMs: 0.5,
      },
    ]);
    const c = cycles[0]!;
    expect(c.workerBeforeRunMs + c.runMs + c.workerAfterRunMs + c.waitForJobMs + c.workerJobMs).toBe(
      c.cycleMs,
    );
  });
});
