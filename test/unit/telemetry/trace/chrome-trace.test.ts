import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../../src-main/telemetry/trace';
import { requestEvents, writeChromeTrace } from '../../../../src-main/telemetry/trace';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import { TimelineRecorder } from '../../../../src-main/telemetry/timeline';
import { timeline } from '../report/timeline-fixture';

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
});
