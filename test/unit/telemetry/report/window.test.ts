import { describe, expect, it } from 'vitest';
import { TimelineWindow } from '../../../../src-main/telemetry/report/window';
import { timeline } from './timeline-fixture';

describe('TimelineWindow', () => {
  it('keeps the newest timelines up to its capacity, oldest first', () => {
    const window = new TimelineWindow(3);
    const timelines = Array.from({ length: 5 }, (_, i) => timeline({ id: `r${i}` }));
    for (const t of timelines) window.push(t);
    expect(window.size).toBe(3);
    expect(window.numPushed).toBe(5);
    expect(window.toArray().map((t) => t.requestId)).toEqual(['r2', 'r3', 'r4']);
  });

  it('defaults to 10,000 timelines', () => {
    expect(new TimelineWindow().capacity).toBe(10_000);
  });

  it('reports over what it holds, and says no requests when empty', () => {
    const window = new TimelineWindow(10);
    expect(window.report().isEmpty).toBe(true);
    window.push(timeline({ parts: { prefill: 12 } }));
    expect(window.report().ttft.p50Ms).toBe(12);
    window.clear();
    expect(window.size).toBe(0);
  });

  it("keeps a pushed timeline unchanged: a client's figures are their own record, joined into a copy", () => {
    const window = new TimelineWindow(2);
    const checked = timeline({ id: 'r0', parts: { prefill: 12 } });
    const before = structuredClone(checked);
    window.push(checked);
    expect(window.addClientFigures('r0', { clientTtftMs: 15, clientE2eMs: 40 })).toBe(true);
    expect(checked).toEqual(before);
    expect(window.latest('r0')).toMatchObject({ requestId: 'r0', clientTtftMs: 15, clientE2eMs: 40 });
    expect(window.toArray()[0]).toMatchObject({ clientTtftMs: 15 });
    expect(window.addClientFigures('unknown', { clientTtftMs: 1, clientE2eMs: null })).toBe(false);
    window.push(timeline({ id: 'r1' }));
    window.push(timeline({ id: 'r2' }));
    expect(window.latest('r0')).toBeUndefined();
    expect(window.toArray().map((t) => t.clientTtftMs)).toEqual([null, null]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new TimelineWindow(0)).toThrow(RangeError);
  });
});
