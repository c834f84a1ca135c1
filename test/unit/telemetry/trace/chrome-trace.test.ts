import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../../src-main/telemetry/trace/chrome-trace';
import { requestEvents, writeChromeTrace } from '../../../../src-main/telemetry/trace/chrome-trace';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import { TimelineRecorder } from '../../../../src-main/telemetry/timeline/recorder';
import { timeline } from '../report/timeline-fixture';
import { everyFinishTimelines } from './every-finish';
import { traceProblems } from './trace-event-format';

async function traceOf(timelines: Parameters<typeof writeChromeTrace>[0]) {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const numRequests = await writeChromeTrace(timelines, out);
  return { numRequests, parsed: JSON.parse(text) as { traceEvents: TraceEvent[]; displayTimeUnit: string } };
}

describe('Chrome trace export', () => {
  it('puts each request on its own track with a request span and one complete span per state', () => {
    const t = timeline({ arrivedAt: 2_000, parts: { queue: 10, prefill: 30 }, gapsMs: [5] });
    const events = requestEvents(t, 7);
    expect(events.every((e) => e.tid === 7)).toBe(true);
    expect(events.find((e) => e.name === 'thread_name')?.args).toEqual({ name: t.requestId });
    const spans = events.filter((e) => e.ph === 'X');
    expect(spans[0]).toMatchObject({ name: 'request', ts: 2_000_000, dur: 45_000 });
    expect(spans.find((e) => e.name === 'queue')).toMatchObject({ ts: 2_000_000, dur: 10_000, cat: 'ttft' });
    expect(spans.find((e) => e.name === 'prefill')).toMatchObject({ ts: 2_010_000, dur: 30_000 });
    expect(spans.find((e) => e.name === 'decode')).toMatchObject({ dur: 5_000, cat: 'decode' });
  });

  it('marks an attempt thrown away by a preemption as lost', () => {
    const clock = new ManualClock(0);
    const r = new TimelineRecorder(clock, { requestId: 'p' }, 0);
    r.enter('queue', 1);
    r.enter('prefill', 2);
    r.preempt(9);
    r.enter('prefill', 12);
    r.tokensFlushed(1, 20);
    const names = requestEvents(r.finish('stop', 20), 1).map((e) => e.name);
    expect(names).toContain('prefill (lost)');
    expect(names.filter((n) => n === 'prefill')).toHaveLength(1);
  });

  it('streams valid JSON that trace viewers load: a traceEvents array', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const n = await writeChromeTrace([timeline(), timeline()], out);
    const parsed = JSON.parse(text) as { traceEvents: TraceEvent[]; displayTimeUnit: string };
    expect(n).toBe(2);
    expect(parsed.displayTimeUnit).toBe('ms');
    expect(new Set(parsed.traceEvents.filter((e) => e.ph === 'X').map((e) => e.tid))).toEqual(
      new Set([1, 2]),
    );
  });

  it('is valid Trace Event Format on a run with every finish reason and preemptions: named tracks, nested spans', async () => {
    const timelines = everyFinishTimelines('run-1');
    const { numRequests, parsed } = await traceOf(timelines);
    expect(numRequests).toBe(timelines.length);
    expect(traceProblems(parsed)).toEqual([]);
    const events = parsed.traceEvents;
    expect(new Set(events.map((e) => e.ph))).toEqual(new Set(['X', 'M']));
    for (const e of events.filter((e) => e.ph === 'X')) {
      expect(Number.isInteger(e.ts) && Number.isInteger(e.dur), e.name).toBe(true);
    }
    const serverThreads = events.filter((e) => e.name === 'thread_name' && e.pid === 1);
    expect(serverThreads.map((e) => e.args?.name)).toEqual(timelines.map((t) => t.requestId));
    // The states tile the request span exactly: no gap, no overlap, even on epoch-scale stamps.
    timelines.forEach((t, i) => {
      const track = events.filter((e) => e.ph === 'X' && e.pid === 1 && e.tid === i + 1);
      const [request, ...states] = track;
      expect(request!.name).toBe('request');
      expect(request!.args?.finishReason).toBe(t.finishReason);
      expect(states.reduce((sum, e) => sum + e.dur!, 0)).toBe(request!.dur);
      expect(Math.abs(request!.dur! / 1000 - t.e2eMs)).toBeLessThanOrEqual(0.001);
    });
  });

  it('puts client TTFT on its own track in a client process when the run has client figures', async () => {
    const timelines = everyFinishTimelines('run-1');
    const { parsed } = await traceOf(timelines);
    const withClient = timelines.filter((t) => t.clientTtftMs !== null);
    expect(withClient.length).toBeGreaterThan(0);
    const client = parsed.traceEvents.filter((e) => e.pid === 2);
    expect(client.find((e) => e.name === 'process_name')?.args?.name).toMatch(/client/i);
    const spans = client.filter((e) => e.ph === 'X');
    expect(spans.map((e) => e.args?.requestId)).toEqual(withClient.map((t) => t.requestId));
    for (const [i, t] of withClient.entries()) {
      const server = parsed.traceEvents.find(
        (e) => e.name === 'request' && e.args?.requestId === t.requestId,
      )!;
      expect(spans[i]!.tid).toBe(server.tid);
      expect(spans[i]!.ts).toBe(server.ts);
      expect(Math.abs(spans[i]!.dur! / 1000 - t.clientTtftMs!)).toBeLessThanOrEqual(0.001);
      expect(spans[i]!.args?.transportMs).toBeCloseTo(t.clientTtftMs! - t.ttftMs!, 9);
    }
    const serverOnly = await traceOf(timelines.map((t) => ({ ...t, clientTtftMs: null })));
    expect(serverOnly.parsed.traceEvents.filter((e) => e.pid === 2)).toEqual([]);
    expect(traceProblems(serverOnly.parsed)).toEqual([]);
  });

  it('the format check fails on what a viewer would drop: overlapping spans, unnamed tracks', () => {
    const bad = {
      traceEvents: [
        { name: 'process_name', ph: 'M', pid: 1, tid: 0, args: { name: 'p' } },
        { name: 'a', ph: 'X', pid: 1, tid: 1, ts: 0, dur: 10 },
        { name: 'b', ph: 'X', pid: 1, tid: 1, ts: 5, dur: 10 },
      ],
    };
    expect(traceProblems(bad)).toEqual(['track 1/1 has no thread_name', 'track 1/1: b sticks out of a']);
    expect(traceProblems({ events: [] })).toEqual(['no traceEvents array at the top level']);
  });
});
