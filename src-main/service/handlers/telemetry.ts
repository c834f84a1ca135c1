import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';

type TelemetryHandlers = Pick<
  Handlers,
  'timelines.recent' | 'timelines.reportClientTtft' | 'report.live' | 'app.status'
>;

/** The live window, client TTFT reports, the live report and the app's status. */
export function telemetryHandlers(deps: CoreDeps): TelemetryHandlers {
  return {
    'timelines.recent': ({ limit }) => deps.window.toArray().slice(-limit),
    'timelines.reportClientTtft': ({ requestId, clientTtftMs }) => {
      const timeline = deps.window.toArray().findLast((t) => t.requestId === requestId);
      if (!timeline) {
        if (deps.pendingClientTtfts.size >= 1000) deps.pendingClientTtfts.clear();
        deps.pendingClientTtfts.set(requestId, clientTtftMs);
        return { isRecorded: true };
      }
      if (timeline.ttftMs === null) return { isRecorded: false };
      timeline.clientTtftMs = clientTtftMs;
      deps.store.writer.enqueueClientTtft(requestId, clientTtftMs);
      return { isRecorded: true };
    },
    'report.live': ({ slo }) => deps.window.report({ slo: slo ?? null }),
    'app.status': () => ({
      version: deps.version,
      isPersistent: deps.store.isPersistent,
      persistenceReason: deps.store.unavailable?.message ?? null,
      dataDir: deps.dataDir,
      defaultModelId: deps.runtime.defaultModelId(),
      executionProvider: 'cpu',
      host: deps.host,
    }),
  };
}
