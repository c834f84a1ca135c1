import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZodError } from 'zod';
import { SettingsRefused } from '../runtime/applied-settings';
import { defaultDiscoveryEnvironment } from '../runtime/model/discovery/places';
import { Runtime } from '../runtime/runtime';
import { RemoteEndpoints } from '../runtime/remote/endpoints';
import { RemoteEngine } from '../runtime/remote/remote-engine';
import type { RuntimeOptions } from '../runtime/runtime-options';
import { systemClock } from '../telemetry/clock';
import { TimelineWindow } from '../telemetry/report/window';
import type { Timeline } from '../telemetry/timeline/schema';
import { createHistory } from '../history/create-history';
import type { History } from '../history/history';
import { startBench } from './bench-runner';
import { memoryChats } from './chat-memory';
import { ServiceFailure } from './contract/result';
import type { ApiServerControl, Core, CoreOptions } from './core-options';
import type { CoreDeps } from './core-deps';
import { runtimeFoldersOf } from './data-folder';
import { openProblemLog } from './problem-log';
import { makeNewFilesPrivate, makePrivateFolder } from '../private-files';
import { timelineFlagger } from './timeline-flags';
import { EventHub } from './event-hub';
import { appHandlers } from './handlers/app';
import { chatHandlers } from './handlers/chat';
import { endpointHandlers } from './handlers/endpoints';
import { exportHandlers, exportSources } from './handlers/exports';
import { runHandlers } from './handlers/runs';
import { settingsHandlers, storedSettings } from './handlers/settings';
import { slotHandlers } from './handlers/slots';
import { discoveryHandlers, keptDiscovery } from './handlers/discovery';
import { hubHandlers, openHubDownloads } from './handlers/hub';
import { ModelOrigins } from './hub/model-origins';
import { appStatus, telemetryHandlers } from './handlers/telemetry';
import { toSlotEventPayload } from './mappers';
import { createOpenAiService } from './openai/service';
import { prepareExport } from './run-export';
import { createService } from './service';
import { ImportBudget } from './import-budget';
import { importTrace } from './trace-import';
import { reloadWindow } from './window-reload';
import { listedIdsOf } from './listed-model-ids';
import { watchEndpoints } from './endpoint-watch';

const STATS_EVERY_MS = 250;

/**
 * Builds the core every host runs: the runtime on the bundled and user model folders, the
 * SQLite history (or persistence off, with the reason), the live window and the service. The
 * same factory serves Electron, the headless host and tests.
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  // The data folder holds the user's conversations: nobody else on the machine may read them.
  makeNewFilesPrivate();
  makePrivateFolder(options.dataDir);
  mkdirSync(path.join(options.dataDir, 'models'), { recursive: true });
  const log = openProblemLog(options.dataDir);
  const history = createHistory({
    path: path.join(options.dataDir, 'history.sqlite'),
    nativeBinding: options.sqliteNativeBinding,
    onOpen: options.onHistoryOpen,
    log,
  });
  const { runtime, notes } = await createRuntime(options, history, log).catch((error: unknown) => {
    history.close();
    throw error;
  });
  const hub = new EventHub(log.file);
  log.connect(hub);
  const deps: CoreDeps = {
    runtime,
    remote: new RemoteEngine(new RemoteEndpoints(options.dataDir), systemClock, () => ({
      firstByteMs: runtime.settings.remoteFirstByteMs,
    })),
    history,
    chats: history.isPersistent ? history.chats : memoryChats(),
    window: new TimelineWindow(),
    hub,
    log,
    clock: systemClock,
    dataDir: options.dataDir,
    host: options.host,
    version: packageVersion(),
    pickSavePath: options.pickSavePath ?? null,
    imports: new ImportBudget(options.importBudget),
    openFolder: options.openFolder ?? null,
    origins: new ModelOrigins(options.dataDir),
  };
  // After a restart the Dashboard shows the window it showed before, read back from the history.
  reloadWindow(history, deps.window, log, listedIdsOf(runtime.models()));
  const unsubscribe = wire(deps);
  // Each endpoint's /v1/models at start and periodically; clients hear what each check found.
  const stopWatching = watchEndpoints(deps);
  const openai = createOpenAiService(deps);
  const downloads = openHubDownloads(deps, options.hubUrl);
  const api = options.apiServer?.(openai) ?? fixedApiServer(options.host);
  const service = createService(
    {
      ...appHandlers(deps),
      ...slotHandlers(deps),
      ...discoveryHandlers(deps),
      ...endpointHandlers(deps),
      ...telemetryHandlers(deps),
      ...chatHandlers(deps),
      ...runHandlers(deps),
      ...exportHandlers(deps),
      ...settingsHandlers(deps),
      ...hubHandlers(deps, downloads),
      'bench.start': (input) => startBench(deps, input),
      'api.status': () => api.status(),
      'api.setEnabled': (input) => api.setEnabled(input),
    },
    deps.hub,
  );
  return {
    service,
    openai,
    describe: () => [...describeCore(runtime, history), ...notes],
    prefetchDefault: async () => {
      const modelId = runtime.defaultModelId();
      if (modelId) await runtime.prefetch(modelId);
      return modelId;
    },
    openExport: (request) => prepareExport(exportSources(deps), request),
    importTrace: (upload) => importTrace(history, deps.imports, upload),
    imports: deps.imports,
    log,
    close: async () => {
      unsubscribe();
      stopWatching();
      deps.remote.cancelAll();
      if (!(downloads instanceof Error)) await downloads.close();
      await api.close();
      await runtime.close();
      history.writer.flush();
      history.close();
    },
  };
}

/**
 * The runtime on the settings kept from the last session, with the host's own (command-line
 * flags, tests) on top. Kept settings that no longer apply (a provider gone) are dropped with
 * a note rather than keeping the app from starting.
 */
async function createRuntime(
  options: CoreOptions,
  history: History,
  log: RuntimeOptions['log'],
): Promise<{ runtime: Runtime; notes: string[] }> {
  const base: Partial<RuntimeOptions> & Pick<RuntimeOptions, 'bundledModelsDir'> = {
    log,
    bundledModelsDir: options.bundledModelsDir,
    ...(options.startChild ? { startChild: options.startChild } : {}),
    ...runtimeFoldersOf(options.dataDir),
    diskPages: history.contextPages && {
      dir: path.join(options.dataDir, 'context-pages'),
      rows: history.contextPages,
    },
    tokenIds: history.tokenPieces,
    discovery: {
      isEnabled: options.discoverModels ?? keptDiscovery(history),
      environment: options.discoveryEnvironment ?? defaultDiscoveryEnvironment(),
    },
  };
  const overrides = (options.runtime ?? {}) as Partial<RuntimeOptions>;
  const kept = storedSettings(history);
  const notes = kept.problem ? [kept.problem] : [];
  try {
    return { runtime: await Runtime.create({ ...base, ...kept.patch, ...overrides }), notes };
  } catch (error) {
    if (
      Object.keys(kept.patch).length === 0 ||
      !(error instanceof SettingsRefused || error instanceof ZodError)
    )
      throw error;
    notes.push(`kept settings ignored: ${error.message}`);
    return { runtime: await Runtime.create({ ...base, ...overrides }), notes };
  }
}

/** Every finished timeline and slot event goes to the window, the store and the clients. */
function wire(deps: CoreDeps): () => void {
  const flag = timelineFlagger(deps.log);
  const onTimeline = (timeline: Timeline) => {
    flag(timeline);
    deps.window.push(timeline);
    deps.history.writer.enqueue(timeline);
    deps.hub.emit('timeline.finished', { timeline });
  };
  const offTimeline = deps.runtime.onTimeline(onTimeline);
  const offRemote = deps.remote.onTimeline(onTimeline);
  const offConversion = deps.runtime.onSlotConversion((slot) => {
    if (slot.conversion)
      deps.hub.emit('slot.conversion', {
        slotId: slot.slotId,
        modelId: slot.model.modelId,
        progress: slot.conversion,
      });
  });
  const offSlot = deps.runtime.onSlotEvent((event) => {
    const payload = toSlotEventPayload(event);
    deps.history.writer.enqueueSlotEvent(payload);
    deps.hub.emit('slot.event', payload);
  });
  let lastStatus = '';
  const timer = setInterval(() => {
    deps.hub.emit('engine.stats', { atWallMs: deps.clock.wallNow(), ...deps.runtime.queueSummary() });
    // History can become degraded (busy, full) or off at any time, and Settings can change the
    // default model (the picker's "default:" option): tell clients when either changes.
    const status = appStatus(deps);
    const key = `${status.historyState} ${status.persistenceReason?.replace(/\d+ write/, '')} ${status.defaultModelId}`;
    if (key !== lastStatus && lastStatus !== '') deps.hub.emit('app.status', status);
    lastStatus = key;
  }, STATS_EVERY_MS);
  timer.unref();
  return () => {
    offTimeline();
    offRemote();
    offSlot();
    offConversion();
    clearInterval(timer);
  };
}

/** A host that mounts `/v1` itself (the headless host) or not at all: nothing to switch. */
function fixedApiServer(host: CoreOptions['host']): ApiServerControl {
  const status = {
    isEnabled: host === 'headless',
    isToggleable: false,
    baseUrl: null,
    port: null,
    hasApiKey: Boolean(process.env['FIRST_FRAME_API_KEY']),
    note:
      host === 'headless'
        ? 'the headless host always serves /v1 next to the app'
        : 'this host has no API server',
  };
  return {
    status: () => status,
    setEnabled: async () => {
      throw new ServiceFailure('unavailable', status.note);
    },
    close: async () => undefined,
  };
}

function describeCore(runtime: Runtime, history: History): string[] {
  const models = runtime.models();
  const lines = models.map((m) =>
    m.status === 'ok'
      ? `model ${m.modelId} (${m.isBundled ? 'bundled' : 'user'}${m.isDefaultVariant ? `, default for ${m.name}` : ''}, ${m.model.graph.weightDtype} weights)`
      : `model ${m.modelId} is broken: ${m.error}`,
  );
  if (models.length === 0) lines.push('no model folders found');
  lines.push(
    history.isPersistent
      ? 'history: on (SQLite)'
      : `history: OFF — ${history.unavailable?.message ?? 'unavailable'}`,
  );
  return lines;
}

function packageVersion(): string {
  try {
    const file = fileURLToPath(new URL('../../package.json', import.meta.url));
    return String((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0');
  } catch {
    return '0.0.0'; // shown in the status line only; nothing depends on it
  }
}
