import path from 'node:path';
import { startOpenAiServer } from '../../../host/openai';
import { createOpenAiService } from '../../../service/openai';
import { createStore } from '../../../store';
import type { Store } from '../../../store';
import { systemClock } from '../../../telemetry/clock';
import type { Timeline } from '../../../telemetry/timeline';
import { judgeClientTtft } from '../../../telemetry/timeline';
import type { SettingsPatch } from '../../../runtime/settings';
import type { LoadHost } from './load-host';
import { openModelRuntime } from './model-runtime';

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
    storeNote: store.isPersistent
      ? `runs stored in ${options.dataDir} (the app's Runs view compares them)`
      : `runs not stored: ${store.unavailable?.message ?? 'history off'}`,
    createRun: (name, config) => (store.isPersistent ? store.runs.create({ name, config }).runId : null),
    reportClientTtft: async (requestId, clientTtftMs) => byRun.setClientTtft(requestId, clientTtftMs),
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
    /** The late client TTFT: on the kept timeline and, through the writer, on the stored row. */
    setClientTtft: (requestId: string, clientTtftMs: number) => {
      const timeline = byRequest.get(requestId);
      if (!timeline) return;
      const verdict = judgeClientTtft(timeline.ttftMs, clientTtftMs);
      if (!verdict.isAccepted) return console.warn(`${requestId}: ${verdict.reason}`);
      timeline.clientTtftMs = clientTtftMs;
      store.writer.enqueueClientTtft({ requestId, clientTtftMs, transportMs: verdict.transportMs });
    },
  };
}
