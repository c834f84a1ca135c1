import type { StoreApi } from 'zustand/vanilla';
import type { Bridge } from '../bridge/bridge';
import type { ApiState } from './api-store';
import { createApiStore } from './api-store';
import type { BenchState } from './bench-store';
import { createBenchStore } from './bench-store';
import type { ChatState } from './chat-store';
import { createChatStore } from './chat-store';
import { interruptActiveAnswer } from './chat-send';
import { loadPreferences } from './preferences';
import type { HubState } from './hub-store';
import { createHubStore } from './hub-store';
import type { LiveState } from './live-store';
import { createLiveStore, LIVE_LIMITS } from './live-store';
import type { ModelSourcesState } from './model-sources-store';
import { createModelSourcesStore } from './model-sources-store';
import type { RunsState } from './runs-store';
import { createRunsStore } from './runs-store';
import type { SettingsEditState } from './settings-store';
import { createSettingsStore } from './settings-store';
import type { SlotsState } from './slots-store';
import { createSlotsStore } from './slots-store';
import type { TracesState } from './traces-store';
import { createTracesStore } from './traces-store';
import type { UiState } from './ui-store';
import { createUiStore } from './ui-store';

/** Every store of the app, framework-free; React reaches them through the adapter. */
export interface Stores {
  bridge: Bridge;
  ui: StoreApi<UiState>;
  chat: StoreApi<ChatState>;
  live: StoreApi<LiveState>;
  slots: StoreApi<SlotsState>;
  bench: StoreApi<BenchState>;
  runs: StoreApi<RunsState>;
  traces: StoreApi<TracesState>;
  settings: StoreApi<SettingsEditState>;
  api: StoreApi<ApiState>;
  hub: StoreApi<HubState>;
  modelSources: StoreApi<ModelSourcesState>;
  /** Stops listening to the bridge. */
  dispose(): void;
}

/**
 * Builds the stores over one bridge and routes each pushed event batch to the stores that
 * care. A finished answer's client TTFT goes to the service and into the live window.
 */
export function createStores(bridge: Bridge): Stores {
  const ui = createUiStore();
  // The Dashboard opens on the chat's answers; a bench's cold loads are one choice away.
  const live = createLiveStore('chats');
  const chat = createChatStore(bridge, (requestId, clientTtftMs, clientE2eMs) => {
    live.getState().setClientTtft(requestId, clientTtftMs, clientE2eMs);
    void bridge.call('timelines.reportClientTtft', {
      requestId,
      clientTtftMs,
      ...(clientE2eMs === null ? {} : { clientE2eMs }),
    });
  });
  const slots = createSlotsStore(bridge);
  const bench = createBenchStore(bridge);
  const runs = createRunsStore(bridge);
  const hub = createHubStore(bridge, slots);
  const unsubscribe = bridge.subscribe((events, receivedAt) => {
    // The window takes a batch's timelines first: an answer finished in it reports its client
    // figures next, into its timeline there.
    const timelines = events.flatMap((e) => (e.name === 'timeline.finished' ? [e.payload.timeline] : []));
    if (timelines.length > 0) live.getState().addTimelines(timelines);
    chat.getState().onEvents(events, receivedAt);
    ui.getState().onEvents(events);
    slots.getState().onEvents(events);
    bench.getState().onEvents(events);
    runs.getState().onEvents(events);
    hub.getState().onEvents(events);
    const load = events.flatMap((e) => (e.name === 'engine.stats' ? [e.payload] : []));
    if (load.length > 0) live.getState().addLoad(load);
    const status = events.findLast((e) => e.name === 'app.status');
    if (status?.name === 'app.status') ui.setState({ status: status.payload });
  });
  let wasLost = false;
  let interruptedIn: string | null = null;
  const unwatch = bridge.onConnection((connection) => {
    ui.setState({ connection });
    if (connection === 'lost') {
      wasLost = true;
      interruptedIn = interruptActiveAnswer(chat) ?? interruptedIn;
    }
    if (connection !== 'open' || !wasLost) return;
    wasLost = false;
    const reopen = interruptedIn;
    interruptedIn = null;
    void resync(stores, reopen);
  });
  const stores: Stores = {
    bridge,
    ui,
    chat,
    live,
    slots,
    bench,
    runs,
    traces: createTracesStore(bridge),
    settings: createSettingsStore(bridge),
    api: createApiStore(bridge),
    hub,
    modelSources: createModelSourcesStore(bridge, slots),
    dispose: () => (unsubscribe(), unwatch()),
  };
  return stores;
}

/**
 * After the event feed comes back: events sent meanwhile are gone, so re-read everything, and
 * if an answer was cut off by the drop (`interruptedIn`, its conversation) and that conversation
 * is still open, read it back from the history: the answer as it finished, or as far as it got
 * when First Frame stopped (stored as interrupted).
 */
async function resync(stores: Stores, interruptedIn: string | null): Promise<void> {
  await loadInitialState(stores);
  stores.chat.getState().refreshForecast(); // the last one may have failed while we were away
  const { conversationId } = stores.chat.getState();
  if (interruptedIn !== null && conversationId === interruptedIn)
    await stores.chat.getState().openConversation(conversationId);
}

/** The first reads: status, models and slots, hub downloads, conversations, and the recent timelines. */
export async function loadInitialState(stores: Stores): Promise<void> {
  const { bridge } = stores;
  const [status, recent] = await Promise.all([
    bridge.call('app.status', {}),
    bridge.call('timelines.recent', { limit: LIVE_LIMITS.numTimelines }),
    stores.slots.getState().refresh(),
    stores.hub.getState().refresh(),
    stores.chat.getState().loadConversations(),
    stores.chat.getState().loadDefaults(),
    loadPreferences(stores),
  ]);
  if (status.ok) stores.ui.getState().setStatus(status.value);
  if (recent.ok) stores.live.getState().replaceTimelines(recent.value);
}
