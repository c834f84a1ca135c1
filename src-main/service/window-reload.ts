import type { Log } from '../telemetry/log/log';
import type { History } from '../history/history';
import type { TimelineWindow } from '../telemetry/report/window';
import type { ListedIdOf } from './listed-model-ids';

/** The workload text an imported trace's run is filed under (see trace-import.ts). */
export const IMPORT_WORKLOAD_PREFIX = 'trace import: ';

/**
 * Fills an empty live window with the newest stored timelines this app served (chat, API and
 * benches; imported traces stay in their runs), so the Dashboard after a restart shows the
 * recent window it showed before. Returns how many it reloaded. A history damaged where those
 * rows lie reloads nothing (said in the log): the app still starts, and history says "damaged".
 */
export function reloadWindow(
  history: History,
  window: TimelineWindow,
  log: Log,
  listedIdOf: ListedIdOf = (modelId) => modelId,
): number {
  if (!history.isPersistent || window.size > 0) return 0;
  try {
    return pushServed(history, window, listedIdOf);
  } catch (error) {
    log.warn('store', `the Dashboard's recent window was not reloaded: ${(error as Error).message}`);
    return 0;
  }
}

/**
 * Pushes the newest stored runtime timelines that no trace import filed, each model named by
 * today's id (an old `:fp32` run reads as its weights); throws on unreadable rows.
 */
function pushServed(history: History, window: TimelineWindow, listedIdOf: ListedIdOf): number {
  const imported = new Set(
    history.runs
      .list()
      .filter((run) => String(run.config.workload ?? '').startsWith(IMPORT_WORKLOAD_PREFIX))
      .map((run) => run.runId),
  );
  const served = history.timelines
    .recent(window.capacity)
    .filter((t) => t.source === 'runtime' && !(t.runId && imported.has(t.runId)));
  for (const timeline of served) window.push({ ...timeline, modelId: listedIdOf(timeline.modelId) });
  return served.length;
}
