import path from 'node:path';
import { startOpenAiServer } from '../../src-main/host/openai/standalone-server';
import { createOpenAiService } from '../../src-main/service/openai/service';
import { createHistory } from '../../src-main/history/create-history';
import { systemClock } from '../../src-main/telemetry/clock';
import type { SettingsPatch } from '../../src-main/runtime/settings/schema';
import type { LoadHost } from './load-host';
import { openModelRuntime } from './model-runtime';
import { runTimelines } from './run-timelines';

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
  const history = createHistory({
    path: options.dataDir ? path.join(options.dataDir, 'history.sqlite') : null,
    isPruning: false,
  });
  const byRun = runTimelines(history);
  runtime.onTimeline(byRun.add);
  const openai = createOpenAiService({ runtime, clock: systemClock, history });
  const server = await startOpenAiServer({ openai });
  return {
    target: { baseUrl: server.baseUrl, apiKey: null },
    modelId,
    remote: null,
    storeNote: history.isPersistent
      ? `runs stored in ${options.dataDir} (the app's Runs view compares them)`
      : `runs not stored: ${history.unavailable?.message ?? 'history off'}`,
    // With history off the run lives in memory: its requests are still tagged and reported.
    createRun: (name, config) => ({
      runId: history.runs.create({ name, config }).runId,
      isStored: history.isPersistent,
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
      history.writer.flush();
      history.close();
    },
  };
}
