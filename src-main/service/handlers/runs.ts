import { DEFAULT_TTFT_EDGES_MS } from '../../telemetry/report';
import { toCsvString } from '../../telemetry/trace';
import type { RunMetrics } from '../../store';
import { ServiceFailure } from '../contract';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { importTrace } from '../trace-import';
import type { RunComparison } from '../contract';
import { parseModelRef } from '../../runtime/model/variant-names';
import { qualityOfRevision, readQualityResults } from '../quality-file';

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
        quality: variantQuality(deps, runIdA, runIdB),
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

/**
 * Each run's measured variant quality, when the two runs ran different variants of one model
 * (their configs name one model each); null when they did not, so the view shows speed alone.
 */
function variantQuality(deps: CoreDeps, runIdA: string, runIdB: string): RunComparison['quality'] {
  const modelOf = (runId: string) => {
    const revisions = deps.store.runs.get(runId)?.config?.['modelRevisions'];
    if (!revisions || typeof revisions !== 'object') return null;
    const entries = Object.entries(revisions as Record<string, unknown>);
    if (entries.length !== 1 || typeof entries[0]![1] !== 'string') return null;
    const [modelId, revision] = entries[0] as [string, string];
    return { ...parseModelRef(modelId), revision };
  };
  const a = modelOf(runIdA);
  const b = modelOf(runIdB);
  if (!a || !b || a.name !== b.name || a.revision === b.revision) return null;
  const results = readQualityResults(deps.dataDir);
  const stored = results instanceof Error ? [] : results;
  return { a: qualityOfRevision(stored, a.revision), b: qualityOfRevision(stored, b.revision) };
}

function sideOf(metrics: RunMetrics) {
  const { ttftHistogram: _histogram, ...side } = metrics;
  return side;
}
