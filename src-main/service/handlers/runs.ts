import { toCsvString } from '../../telemetry/trace/csv-export';
import { ServiceFailure } from '../contract/result';
import { compareRuns } from '../compare/compare-runs';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { importTrace } from '../trace-import';
import { readQualityResults } from '../quality-file';
import { listedIdsOf, runWithListedIds } from '../listed-model-ids';
import type { RunRecord } from '../../history/queries/runs';

type RunHandlers = Pick<
  Handlers,
  'runs.list' | 'runs.rename' | 'runs.delete' | 'runs.compare' | 'runs.exportCsv' | 'traces.import'
>;

/** Stored runs, their side-by-side comparison, CSV export and trace import. */
export function runHandlers(deps: CoreDeps): RunHandlers {
  const { history } = deps;
  // Old runs name a model by its id before ids named the weights (`:fp32`): shown by today's.
  const shownAll = (runs: RunRecord[]) => {
    const listedIdOf = listedIdsOf(deps.runtime.models());
    return runs.map((run) => runWithListedIds(run, listedIdOf));
  };
  const shown = (run: RunRecord) => shownAll([run])[0]!;
  return {
    'runs.list': () =>
      shownAll(history.runs.list()).map((run) => ({ ...run, config: run.config as Record<string, unknown> })),
    'runs.rename': ({ runId, name }) => {
      if (!history.runs.rename(runId, name)) throw new ServiceFailure('not_found', `no stored run ${runId}`);
      const run = shown(history.runs.get(runId)!);
      return { ...run, config: run.config as Record<string, unknown> };
    },
    'runs.delete': ({ runId }) => {
      const run = history.runs.get(runId);
      if (!run) throw new ServiceFailure('not_found', `no stored run ${runId}`);
      // Its queued timelines land first, so the cascade removes every one of its rows.
      history.writer.flush();
      const numRequests = history.runs.get(runId)?.numRequests ?? run.numRequests;
      return { isDeleted: history.runs.remove(runId), numRequests };
    },
    'runs.compare': ({ runIds, slo }) => {
      const quality = readQualityResults(deps.dataDir);
      return compareRuns(history, runIds, slo, quality instanceof Error ? [] : quality, shown);
    },
    'runs.exportCsv': ({ runId }) => {
      const timelines = runId === null ? deps.window.toArray() : history.timelines.ofRun(runId);
      const stamp = new Date(deps.clock.wallNow()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      return {
        fileName: `first-frame-${runId ?? 'live'}-${stamp}.csv`,
        csv: toCsvString(timelines),
        numRows: timelines.length,
      };
    },
    'traces.import': ({ fileName, text, skipBadLines }) =>
      importTrace(history, deps.imports, { fileName, chunks: [text], skipBadLines, numBytes: text.length }),
  };
}
