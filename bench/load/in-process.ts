import path from 'node:path';
import { startOpenAiServer } from '../../src-main/host/openai/standalone-server';
import { createOpenAiService } from '../../src-main/service/openai/service';
import { createStore } from '../../src-main/store/create-store';
import type { Store } from '../../src-main/store/store';
import { systemClock } from '../../src-main/telemetry/clock';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { judgeClientTtft } from '../../src-main/telemetry/timeline/client-ttft';
import type { SettingsPatch } from '../../src-main/runtime/settings/schema';
import type { ClientFigures, LoadHost } from './load-host';
import { openModelRuntime } from './model-runtime';
import { printError } from '../../src-main/printable';

/** How the in-process host is built. */
export interface InProcessOptions {
  modelDir: string;
  /** `--variant`: which of the folder's ONNX files; null for its default. */
  variant: string | null;
  /** The app's data folder (history.sqlite, revisions.json); null runs with history off. */
  dataDir: string | null;
  /** Runtime settings over the defaults (seats, budgets, limits…). */
  settings: SettingsPatch;
}

/**
 * A headless runtime, history store and `/v1` server in this process on 127.0.0.1, wired as
 * createCore wires them (every finished timeline goes to the store), so runs show up in the
 * app's Runs view when it opens the same data folder.
 */
export async function startInProcessHost(options: InProcessOptions): Promise<LoadHost> {
  const { runtime, modelId, model } = await openModelRuntime(
    options.modelDir,
    {
      revisionCacheFile: options.dataDir ? path.join(options.dataDir, 'revisions.json') : null,
      graphCacheDir: options.dataDir ? path.join(options.dataDir, 'ort-graphs') : null,
      ...options.settings,
    },
    options.variant,
  );
  const store = createStore({
    path: options.dataDir ? path.join(options.dataDir, 'history.sqlite') : null,
    isPruning: false,
  });
  const byRun = runTimelines(store);
  runtime.onTimeline(byRun.add);
  const openai = createOpenAiService({ runtime, clock: systemClock, store });
  const server = await startOpenAiServer({ openai });
  return {
    target: { baseUrl: server.baseUrl, apiKey: null },
    modelId,
    remote: null,
    storeNote: store.isPersistent
      ? `runs stored in ${options.dataDir} (the app's Runs view compares them)`
      : `runs not stored: ${store.unavailable?.message ?? 'history off'}`,
    // With history off the run lives in memory: its requests are still tagged and reported.
    createRun: (name, config) => ({
      runId: store.runs.create({ name, config }).runId,
      isStored: store.isPersistent,
    }),
    reportClient: async (requestId, seen) => byRun.setClient(requestId, seen),
    beforePhase: async () => undefined,
    afterPhase: async () => ({ serverPhases: null }),
    timelinesOf: (runId) => byRun.of(runId),
    runtimeFacts: () => ({
      settings: runtime.settings,
      provider: runtime.options.executionProvider,
      modelRevisions: { [modelId]: model.revisions.modelRevision },
    }),
    close: async () => {
      await server.close();
      await runtime.close();
      store.writer.flush();
      store.close();
    },
  };
}

/** Finished timelines go to the store and are kept by run id for the phase's server report. */
function runTimelines(store: Store) {
  const byRun = new Map<string, Timeline[]>();
  const byRequest = new Map<string, Timeline>();
  return {
    add: (timeline: Timeline) => {
      store.writer.enqueue(timeline);
      if (!timeline.runId) return;
      byRequest.set(timeline.requestId, timeline);
      const list = byRun.get(timeline.runId) ?? [];
      list.push(timeline);
      byRun.set(timeline.runId, list);
    },
    of: (runId: string) => byRun.get(runId) ?? [],
    /**
     * The client's figures, on the kept timeline and, through the writer, on the stored row.
     * The client runs in this process, so its send instant and the server's arrival share a
     * clock: their difference is the inbound network time.
     */
    setClient: (requestId: string, seen: ClientFigures) => {
      const timeline = byRequest.get(requestId);
      if (!timeline) return;
      const verdict = judgeClientTtft(timeline.ttftMs, seen.clientTtftMs);
      if (!verdict.isAccepted) return printError(`${requestId}: ${verdict.reason}`);
      const figures = {
        clientTtftMs: seen.clientTtftMs,
        clientE2eMs: seen.clientE2eMs,
        networkInMs: timeline.arrivedAt - seen.sentAt,
      };
      Object.assign(timeline, figures);
      store.writer.enqueueClientTtft({ requestId, transportMs: verdict.transportMs, ...figures });
    },
  };
}
