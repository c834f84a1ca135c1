import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { Slo } from '../../src-main/service/contract/report-schemas';
import type { EngineStats } from '../../src-main/service/contract/schemas';
import { buildReportFromColumns } from '../../src-main/telemetry/report/build-report';
import type { Boundary } from '../../src-main/telemetry/report/seed-phases';
import type { LatencyReport } from '../../src-main/telemetry/report/types';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { onWallClock } from './live-timelines';
import { createThrottle } from './throttle';
import { isFromSource } from './timeline-source';
import type { DashboardSource } from './timeline-source';
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
  /** Whose requests the report and bars cover (the window itself keeps every request). */
  source: DashboardSource;
  view: LiveView;
  addTimelines(timelines: readonly Timeline[]): void;
  replaceTimelines(timelines: readonly Timeline[]): void;
  addLoad(points: readonly EngineStats[]): void;
  /** The client's TTFT (and E2E, when it has it) for a request, before or after its timeline arrives. */
  setClientTtft(requestId: string, clientTtftMs: number, clientE2eMs?: number | null): void;
  setSlo(slo: Slo | null): void;
  setBoundary(boundary: Boundary | 'auto'): void;
  setSource(source: DashboardSource): void;
}

/**
 * The dashboard's store. The window is an array of timelines (re-anchored to the wall clock,
 * see onWallClock); those of the chosen `source` are mirrored in report columns that are updated
 * per batch, so the throttled recompute only runs the report's selections, never a pass over
 * 10,000 objects (changing the source rebuilds the columns once).
 */
export function createLiveStore(initialSource: DashboardSource = 'all'): StoreApi<LiveState> {
  const columns = new WindowColumns(LIVE_LIMITS.numTimelines);
  const ofSource = (ts: readonly Timeline[]) => ts.filter((t) => isFromSource(t, store.getState().source));
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
      source: initialSource,
      view: viewOf(columns, [], [], DEFAULT_SLO, 'auto', initialSource),
      addTimelines(ts) {
        const added = ts.map(onWallClock);
        columns.append(ofSource(added));
        update({ timelines: [...get().timelines, ...added].slice(-LIVE_LIMITS.numTimelines) });
      },
      replaceTimelines(ts) {
        const sorted = ts.map(onWallClock).sort((a, b) => a.arrivedAt - b.arrivedAt);
        columns.replace(ofSource(sorted));
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
        const row = columns.rowOf(requestId);
        if (row !== null) columns.setRow(row, next[at]);
        update({ timelines: next });
      },
      setSlo: (slo) => update({ slo }),
      setBoundary: (boundary) => update({ boundary }),
      setSource(source) {
        set({ source });
        columns.replace(ofSource(get().timelines));
        recompute.schedule();
      },
    };
  });
  const recompute = createThrottle(() => {
    const { timelines, load, slo, boundary, source } = store.getState();
    store.setState({ view: viewOf(columns, timelines, load, slo, boundary, source) });
  }, LIVE_LIMITS.recomputeMs);
  return store;
}

function viewOf(
  columns: WindowColumns,
  timelines: Timeline[],
  load: EngineStats[],
  slo: Slo | null,
  boundary: Boundary | 'auto',
  source: DashboardSource,
): LiveView {
  return {
    report: buildReportFromColumns(columns.columns(), { slo, boundary }),
    recent: newestOf(timelines, source, LIVE_LIMITS.numBars),
    load,
    computedAt: performance.now(),
  };
}

/** The newest `count` timelines of `source`, oldest first (a walk back from the end, not a pass over the window). */
function newestOf(timelines: readonly Timeline[], source: DashboardSource, count: number): Timeline[] {
  if (source === 'all') return timelines.slice(-count);
  const out: Timeline[] = [];
  for (let i = timelines.length - 1; i >= 0 && out.length < count; i--)
    if (isFromSource(timelines[i]!, source)) out.push(timelines[i]!);
  return out.reverse();
}
