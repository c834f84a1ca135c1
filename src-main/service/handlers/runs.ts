import { DEFAULT_TTFT_EDGES_MS } from '../../telemetry/report';
import { toCsvString } from '../../telemetry/trace';
import type { RunMetrics } from '../../store';
import { ServiceFailure } from '../contract';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { importTrace } from '../trace-import';

type RunHandlers = Pick<Handlers, 'runs.list' | 'runs.compare' | 'runs.exportCsv' | 'traces.import'>;

/** Stored runs, their side-by-side comparison, CSV export and trace import. */
export function runHandlers(deps: CoreDeps): RunHandlers {
  const { store } = deps;
  return {
    'runs.list': () =>
      store.runs.list().map((run) => ({ ...run, config: run.config as Record<string, unknown> })),
    'runs.compare': ({ runIdA, runIdB, slo }) => {
      const a = store.runs.metrics(runIdA, slo, DEFAULT_TTFT_EDGES_MS);
      const b = store.runs.metrics(runIdB, slo, DEFAULT_TTFT_EDGES_MS);
      if (!a || !b)
        throw new ServiceFailure(
          'not_found',
          `no run "${!a ? runIdA : runIdB}"${store.isPersistent ? '' : ' (history is off)'}`,
        );
      return {
        a: sideOf(a),
        b: sideOf(b),
        histogram: {
          edgesMs: a.ttftHistogram.edgesMs,
          countsA: a.ttftHistogram.counts,
          countsB: b.ttftHistogram.counts,
        },
      };
    },
    'runs.exportCsv': ({ runId }) => {
      const timelines = runId === null ? deps.window.toArray() : store.timelines.ofRun(runId);
      const stamp = new Date(deps.clock.wallNow()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      return {
        fileName: `first-frame-${runId ?? 'live'}-${stamp}.csv`,
        csv: toCsvString(timelines),
        numRows: timelines.length,
      };
    },
    'traces.import': ({ fileName, text, skipBadLines }) =>
      importTrace(store, { fileName, chunks: [text], skipBadLines }),
  };
}

function sideOf(metrics: RunMetrics) {
  const { ttftHistogram: _histogram, ...side } = metrics;
  return side;
}
