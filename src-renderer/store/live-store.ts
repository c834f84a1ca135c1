import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { EngineStats, Slo } from '../../src-main/service/contract';
import { buildReportFromColumns } from '../../src-main/telemetry/report';
import type { Boundary, LatencyReport } from '../../src-main/telemetry/report';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { onWallClock } from './live-timelines';
import { createThrottle } from './throttle';
import { WindowColumns } from './window-columns';

/** Window size, bars drawn, load points kept, and the recompute cadence (≤ 4/s). */
export const LIVE_LIMITS = { numTimelines: 10_000, numBars: 200, numLoadPoints: 600, recomputeMs: 250 };

/** Goodput objectives until the user types their own. */
export const DEFAULT_SLO: Slo = { ttftMs: 500, itlMs: 100 };

/** What the dashboard draws; replaced as a whole at most 4×/s, so charts re-render that often. */
export interface LiveView {
  report: LatencyReport;
  recent: Timeline[];
  load: EngineStats[];
  computedAt: number;
}

/** The live window: raw arrays updated per event batch, and the throttled view derived from them. */
export interface LiveState {
  timelines: Timeline[];
  load: EngineStats[];
  slo: Slo | null;
  /** The boundary goodput and the p95 split are computed at (auto: the client's when present). */
  boundary: Boundary | 'auto';
  view: LiveView;
  addTimelines(timelines: readonly Timeline[]): void;
  replaceTimelines(timelines: readonly Timeline[]): void;
  addLoad(points: readonly EngineStats[]): void;
  /** The client's TTFT (and E2E, when it has it) for a request, before or after its timeline arrives. */
  setClientTtft(requestId: string, clientTtftMs: number, clientE2eMs?: number | null): void;
  setSlo(slo: Slo | null): void;
  setBoundary(boundary: Boundary | 'auto'): void;
}

/**
 * The dashboard's store. The window is an array of timelines (re-anchored to the wall clock,
 * see onWallClock) mirrored in report columns that are updated per batch, so the throttled
 * recompute only runs the report's selections, never a pass over 10,000 objects.
 */
export function createLiveStore(): StoreApi<LiveState> {
  const columns = new WindowColumns(LIVE_LIMITS.numTimelines);
  const store = createStore<LiveState>()((set, get) => {
    const update = (patch: Partial<LiveState>) => {
      set(patch);
      recompute.schedule();
    };
    return {
      timelines: [],
      load: [],
      slo: DEFAULT_SLO,
      boundary: 'auto',
      view: viewOf(columns, [], [], DEFAULT_SLO, 'auto'),
      addTimelines(ts) {
        const added = ts.map(onWallClock);
        columns.append(added);
        update({ timelines: [...get().timelines, ...added].slice(-LIVE_LIMITS.numTimelines) });
      },
      replaceTimelines(ts) {
        const sorted = ts.map(onWallClock).sort((a, b) => a.arrivedAt - b.arrivedAt);
        columns.replace(sorted);
        update({ timelines: sorted.slice(-LIVE_LIMITS.numTimelines) });
      },
      addLoad: (points) => update({ load: [...get().load, ...points].slice(-LIVE_LIMITS.numLoadPoints) }),
      setClientTtft(requestId, clientTtftMs, clientE2eMs = null) {
        const timelines = get().timelines;
        const at = timelines.findLastIndex((t) => t.requestId === requestId);
        // The chat reports an answer's figures only once its timeline came, which the window took first.
        if (at < 0) return;
        const next = timelines.slice();
        next[at] = { ...timelines[at]!, clientTtftMs, clientE2eMs };
        columns.setRow(at, next[at]);
        update({ timelines: next });
      },
      setSlo: (slo) => update({ slo }),
      setBoundary: (boundary) => update({ boundary }),
    };
  });
  const recompute = createThrottle(() => {
    const { timelines, load, slo, boundary } = store.getState();
    store.setState({ view: viewOf(columns, timelines, load, slo, boundary) });
  }, LIVE_LIMITS.recomputeMs);
  return store;
}

function viewOf(
  columns: WindowColumns,
  timelines: Timeline[],
  load: EngineStats[],
  slo: Slo | null,
  boundary: Boundary | 'auto',
): LiveView {
  return {
    report: buildReportFromColumns(columns.columns(), { slo, boundary }),
    recent: timelines.slice(-LIVE_LIMITS.numBars),
    load,
    computedAt: performance.now(),
  };
}
