import { describeHealth } from '../../history/health';
import type { MethodOutput } from '../contract/methods';
import { judgeClientTtft } from '../../telemetry/timeline/client-ttft';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { LOADABLE_FORMATS } from '../../runtime/model/formats';
import { modelsDirOf } from './app';

type TelemetryHandlers = Pick<
  Handlers,
  'timelines.recent' | 'timelines.reportClientTtft' | 'report.live' | 'app.status'
>;

/** The live window, client TTFT reports, the live report and the app's status. */
export function telemetryHandlers(deps: CoreDeps): TelemetryHandlers {
  return {
    'timelines.recent': ({ limit }) => deps.window.toArray().slice(-limit),
    // The one place a client's figures join a timeline: as their own record in the window, the
    // checked timeline itself never changes. A client reports once it has the request's
    // timeline (pushed in timeline.finished after the window holds it).
    'timelines.reportClientTtft': ({ requestId, clientTtftMs, clientE2eMs }) => {
      const figures = { clientTtftMs, clientE2eMs: clientE2eMs ?? null };
      const timeline = deps.window.latest(requestId);
      if (!timeline)
        return {
          isRecorded: false,
          reason: `no finished request ${requestId} in the live window: report after its timeline.finished`,
        };
      // A remote request's client is this process (its HTTP client): its own stamps stand.
      if (timeline.remote)
        return {
          isRecorded: false,
          reason: 'a remote request keeps the client stamps of this app, its HTTP client',
        };
      const verdict = judgeClientTtft(timeline.ttftMs, clientTtftMs);
      if (!verdict.isAccepted) {
        deps.log.warn('timeline', `${requestId}: ${verdict.reason}`);
        return { isRecorded: false, reason: verdict.reason };
      }
      deps.window.addClientFigures(requestId, figures);
      deps.history.writer.enqueueClientTtft({
        requestId,
        transportMs: verdict.transportMs,
        ...figures,
        networkInMs: null,
      });
      return { isRecorded: true };
    },
    'report.live': ({ slo }) => deps.window.report({ slo: slo ?? null }),
    'app.status': () => appStatus(deps),
  };
}

/** The app's status; history says `on`, `busy`/`full` (degraded, with the reason) or `off`. */
export function appStatus(deps: CoreDeps): MethodOutput<'app.status'> {
  const { history } = deps;
  const health = history.health;
  return {
    version: deps.version,
    isPersistent: history.isPersistent,
    historyState: !history.isPersistent ? 'off' : health.state === 'ok' ? 'on' : health.state,
    persistenceReason: history.unavailable?.message ?? describeHealth(health),
    dataDir: deps.dataDir,
    modelsDir: modelsDirOf(deps),
    modelFormats: [...LOADABLE_FORMATS],
    defaultModelId: deps.runtime.defaultModelId(),
    executionProvider: deps.runtime.options.executionProvider,
    host: deps.host,
    logPath: deps.log.path,
    recentProblems: deps.log.recent(),
  };
}
