import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import {
  checkTimeline,
  TimelineBroken,
  unattributedProblem,
} from '../../../../src-main/telemetry/timeline/check';
import { TTFT_PARTS } from '../../../../src-main/telemetry/timeline/parts';
import { TimelineRecorder } from '../../../../src-main/telemetry/timeline/recorder';

function walkWarmPath(clock: ManualClock, recorder: TimelineRecorder): void {
  const steps: Array<[Parameters<TimelineRecorder['enter']>[0], number]> = [
    ['route', 2],
    ['queue', 1],
    ['activation', 5],
    ['contextLookup', 3],
    ['prefill', 0.5],
    ['emit', 40],
  ];
  for (const [state, afterMs] of steps) {
    clock.advance(afterMs);
    recorder.enter(state);
  }
  clock.advance(1.5);
  recorder.tokensFlushed(1);
}

describe('TimelineRecorder', () => {
  it('derives parts that sum exactly to server TTFT on the warm path', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r1' });
    walkWarmPath(clock, recorder);
    clock.advance(10);
    recorder.tokensFlushed(1);
    const t = recorder.finish('stop');
    expect(t.ttftMs).toBe(53);
    expect(t.parts).toMatchObject({
      inbox: 2,
      route: 1,
      queue: 5,
      activation: 3,
      contextLookup: 0.5,
      prefill: 40,
      emit: 1.5,
    });
    const sum = TTFT_PARTS.reduce((s, p) => s + t.parts[p], 0);
    expect(sum + t.unattributedMs).toBeCloseTo(53, 9);
    expect(t.itlMs).toEqual([10]);
    expect(t.numOutputTokens).toBe(2);
  });

  it('moves an attempt thrown away by a preemption into lostPrefill and the wait after it into requeue', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r2' });
    clock.advance(1);
    recorder.enter('queue');
    clock.advance(2);
    recorder.enter('activation');
    clock.advance(1);
    recorder.enter('prefill');
    clock.advance(7);
    recorder.preempt();
    clock.advance(4);
    recorder.enter('activation');
    clock.advance(1);
    recorder.enter('prefill');
    clock.advance(9);
    recorder.enter('emit');
    clock.advance(1);
    recorder.tokensFlushed(1);
    const t = recorder.finish('length');
    expect(t.parts.lostPrefill).toBe(8);
    expect(t.parts.requeue).toBe(4);
    expect(t.parts.prefill).toBe(9);
    expect(t.parts.activation).toBe(1);
    expect(t.numPreemptions).toBe(1);
    expect(t.ttftMs).toBe(26);
  });

  it('gives parts over the whole life and no TTFT to a request cancelled before its first token', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r3' });
    clock.advance(3);
    recorder.enter('queue');
    clock.advance(10);
    const t = recorder.finish('cancelled');
    expect(t.ttftMs).toBeNull();
    expect(t.parts.queue).toBe(10);
    expect(t.e2eMs).toBe(13);
  });

  it('raises TimelineBroken for a stamp earlier than the previous one', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r4' });
    clock.advance(5);
    recorder.enter('queue');
    expect(() => recorder.enter('prefill', clock.now() - 1)).toThrow(TimelineBroken);
  });

  it('measures a part from its own end stamp: the gap until the next state begins is unattributed', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r5' });
    recorder.enter('route');
    clock.advance(2);
    recorder.leave('route');
    clock.advance(0.25); // a promise hop between routing and queueing
    recorder.enter('queue');
    clock.advance(3);
    recorder.enter('activation');
    clock.advance(1);
    recorder.leave('activation');
    clock.advance(0.5); // the worker copying pages before it starts the chunk
    recorder.enter('prefill');
    clock.advance(10);
    recorder.tokensFlushed(1);
    const t = checkTimeline(recorder.finish('stop'));
    expect(t.parts).toMatchObject({ route: 2, queue: 3, activation: 1, prefill: 10 });
    expect(t.unattributedMs).toBe(0.75);
    expect(t.ttftMs).toBe(16.75);
    expect(unattributedProblem(t)).toBeNull();
  });

  it('refuses parts that overlap: a state that ends after the next one began', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r6' });
    clock.advance(5);
    recorder.leave('inbox');
    expect(() => recorder.enter('route', clock.now() - 1)).toThrow(TimelineBroken);
    expect(() => recorder.leave('inbox', clock.now() - 10)).toThrow(/ended before it began/);
  });

  it('fails the check of a stored timeline whose parts overlap, and flags a large unattributed gap', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r7' });
    clock.advance(1);
    recorder.enter('queue');
    clock.advance(1);
    recorder.leave('queue');
    clock.advance(8);
    recorder.enter('prefill');
    clock.advance(1);
    recorder.tokensFlushed(1);
    const t = recorder.finish('stop');
    expect(unattributedProblem(t)).toMatch(/^8\.000 ms of 11\.000 ms before the first token is in no part/);
    const overlapping = {
      ...t,
      transitions: t.transitions.map((tr) => (tr.state === 'queue' ? { ...tr, endAt: tr.at + 9.5 } : tr)),
    };
    expect(() => checkTimeline(overlapping)).toThrow(/entered prefill at .* before the previous stamp/);
  });

  it('hands out a finished timeline that never changes: writes throw, a fact noted later stays out', () => {
    const clock = new ManualClock();
    const recorder = new TimelineRecorder(clock, { requestId: 'r1' });
    recorder.diagnose({ numQueuedBehind: 1 });
    walkWarmPath(clock, recorder);
    const t = recorder.finish('stop');
    const before = structuredClone(t);
    recorder.diagnose({ numQueuedBehind: 7 });
    recorder.note({ slotId: 'late' });
    expect(t).toEqual(before);
    expect(() => Object.assign(t, { clientTtftMs: 60 })).toThrow(TypeError);
    expect(() => Object.assign(t.parts, { queue: 0 })).toThrow(TypeError);
    expect(() => Object.assign(t.diagnosis!, { numQueuedBehind: 2 })).toThrow(TypeError);
    expect(() => (t.itlMs as number[]).push(1)).toThrow(TypeError);
    expect(recorder.finish('stop')).toBe(t);
  });
});
