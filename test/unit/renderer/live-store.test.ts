import { afterEach, describe, expect, it, vi } from 'vitest';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { createLiveStore, LIVE_LIMITS } from '../../../src-renderer/store/live-store';
import { onWallClock } from '../../../src-renderer/store/live-timelines';

afterEach(() => vi.useRealTimers());

describe('live window store', () => {
  it('keeps at most 10,000 timelines and draws only the most recent 200 bars', () => {
    vi.useFakeTimers();
    const store = createLiveStore();
    const timelines = syntheticTimelines(10_500);
    for (let i = 0; i < timelines.length; i += 500)
      store.getState().addTimelines(timelines.slice(i, i + 500));
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    const { timelines: held, view } = store.getState();
    expect(held).toHaveLength(LIVE_LIMITS.numTimelines);
    expect(held.at(-1)!.requestId).toBe(timelines.at(-1)!.requestId);
    expect(view.recent).toHaveLength(LIVE_LIMITS.numBars);
    expect(view.report.numRequests).toBe(LIVE_LIMITS.numTimelines);
  });

  it('recomputes the report at most 4 times a second however fast batches arrive', () => {
    vi.useFakeTimers();
    const store = createLiveStore();
    let numViews = 0;
    store.subscribe((state, previous) => {
      if (state.view !== previous.view) numViews++;
    });
    const timelines = syntheticTimelines(2_000);
    for (let ms = 0; ms < 1_000; ms += 10) {
      store.getState().addTimelines(timelines.slice(ms, ms + 20));
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    expect(numViews).toBeGreaterThanOrEqual(4);
    expect(numViews).toBeLessThanOrEqual(5);
  });

  it('adds a batch to a full window without recomputing the view, which follows on the throttle', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = createLiveStore();
    store.getState().replaceTimelines(syntheticTimelines(10_000));
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    const before = store.getState().view;
    const batch = syntheticTimelines(50, { seed: 9 });
    store.getState().addTimelines(batch);
    // Adding is only appending: the view is recomputed on the timer, not per batch.
    expect(store.getState().view).toBe(before);
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    expect(store.getState().view).not.toBe(before);
    expect(store.getState().view.report.numRequests).toBe(10_000);
  });

  it('patches a client TTFT into its timeline in the window, and ignores one for a timeline it never had', () => {
    vi.useFakeTimers();
    const store = createLiveStore();
    const [a, b] = syntheticTimelines(2);
    store.getState().addTimelines([a!]);
    store.getState().setClientTtft(a!.requestId, 42);
    store.getState().setClientTtft(b!.requestId, 43);
    store.getState().addTimelines([b!]);
    expect(store.getState().timelines.map((t) => t.clientTtftMs)).toEqual([42, b!.clientTtftMs]);
  });

  it('covers only the chosen source: chats by choice, runs or API requests on request, every one kept in the window', () => {
    vi.useFakeTimers();
    const store = createLiveStore('chats');
    const [chat, bench, api] = syntheticTimelines(3);
    const timelines = [
      { ...chat!, conversationId: 'c1', runId: null },
      { ...bench!, conversationId: null, runId: 'run-1' },
      { ...api!, conversationId: null, runId: null },
    ];
    store.getState().addTimelines(timelines);
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    const shown = () => store.getState().view.recent.map((t) => t.requestId);
    expect(store.getState().view.report.numRequests).toBe(1);
    expect(shown()).toEqual([chat!.requestId]);
    store.getState().setSource('runs');
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    expect(shown()).toEqual([bench!.requestId]);
    store.getState().setSource('api');
    store.getState().setClientTtft(api!.requestId, 77);
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    expect(store.getState().view.report.ttft.p50Ms).toBe(api!.ttftMs);
    expect(shown()).toEqual([api!.requestId]);
    store.getState().setSource('all');
    vi.advanceTimersByTime(LIVE_LIMITS.recomputeMs);
    expect(store.getState().view.report.numRequests).toBe(3);
    expect(store.getState().timelines).toHaveLength(3);
  });

  it('moves instants onto the wall clock, keeping every duration', () => {
    const [t] = syntheticTimelines(1);
    const moved = onWallClock(t!);
    expect(moved.arrivedAt).toBe(t!.wallStartMs);
    expect(moved.finishedAt - moved.arrivedAt).toBeCloseTo(t!.finishedAt - t!.arrivedAt, 3);
    expect(moved.e2eMs).toBe(t!.e2eMs);
  });
});
