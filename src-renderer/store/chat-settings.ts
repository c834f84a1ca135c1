import type { StoreApi } from 'zustand/vanilla';
import type { ConversationSettings } from '../../src-main/service/contract/chat-schemas';
import type { Sampling } from '../../src-main/service/contract/schemas';
import type { Bridge } from '../bridge/bridge';
import type { ChatState } from './chat-store';
import { createThrottle } from './throttle';
import type { Throttle } from './throttle';

/** Settings before the defaults have been read from the service. */
export const EMPTY_SETTINGS: ConversationSettings = {
  systemPrompt: '',
  modelId: null,
  sampling: {},
  contextOverflow: 'drop-oldest',
};

const SETTLE_MS = 300;

/** The settings and forecast side of the chat store: persisted edits, defaults, presets. */
export interface SettingsActions {
  loadDefaults(): Promise<void>;
  setSettings(change: Partial<ConversationSettings>): void;
  setModel(modelId: string | null): void;
  setSampling(sampling: Sampling): void;
  applyPreset(name: string): void;
  saveAsDefaults(): Promise<void>;
  savePreset(name: string): Promise<void>;
  deletePreset(name: string): Promise<void>;
  refreshForecast(): void;
  /** Saves a pending settings edit now (before another conversation opens). */
  flushSettings(): void;
}

/**
 * Settings edits apply at once on screen and reach the service after a short settle (a
 * conversation's own settings; a chat not created yet keeps them as its draft). The forecast
 * is re-asked on the same settle, and a reply older than the newest question is dropped.
 */
export function settingsActions(
  store: StoreApi<ChatState>,
  bridge: Bridge,
): SettingsActions & { dispose(): void } {
  let forecastSeq = 0;
  const persist: Throttle = createThrottle(() => {
    const { conversationId, settings } = store.getState();
    if (!conversationId) return;
    void bridge.call('chat.updateSettings', { conversationId, settings }).then((result) => {
      if (!result.ok) store.setState({ error: `Settings not saved: ${result.error.message}` });
    });
  }, SETTLE_MS);
  const forecast: Throttle = createThrottle(() => {
    const seq = ++forecastSeq;
    const { conversationId, draft, settings } = store.getState();
    void bridge
      .call('chat.forecast', { conversationId, content: draft, ...(conversationId ? {} : { settings }) })
      .then((result) => {
        if (seq !== forecastSeq) return;
        store.setState(
          // A failed forecast clears the old one: figures for another draft would mislead.
          result.ok
            ? { forecast: result.value, forecastError: null }
            : { forecast: null, forecastError: result.error.message },
        );
      });
  }, SETTLE_MS);
  const setSettings = (change: Partial<ConversationSettings>) => {
    store.setState((s) => ({ settings: { ...s.settings, ...change } }));
    persist.schedule();
    forecast.schedule();
  };
  const withDefaults = async (call: ReturnType<Bridge['call']>) => {
    const result = await call;
    if (result.ok) store.setState({ defaults: result.value as ChatState['defaults'], notice: null });
    else store.setState({ error: result.error.message });
  };
  return {
    async loadDefaults() {
      const result = await bridge.call('chat.defaults', {});
      if (!result.ok) return store.setState({ error: result.error.message });
      // A draft the user already edited (before this reply came) keeps the edits.
      const { conversationId, settings } = store.getState();
      const isUntouchedDraft = conversationId === null && settings === EMPTY_SETTINGS;
      store.setState({
        defaults: result.value,
        ...(isUntouchedDraft ? { settings: result.value.settings } : {}),
      });
      forecast.schedule();
    },
    setSettings,
    setModel: (modelId) => setSettings({ modelId }),
    setSampling: (sampling) => setSettings({ sampling }),
    applyPreset(name) {
      const preset = store.getState().defaults?.presets.find((p) => p.name === name);
      if (preset) setSettings({ sampling: { ...preset.sampling } });
    },
    saveAsDefaults: () =>
      withDefaults(bridge.call('chat.setDefaults', { settings: store.getState().settings })),
    savePreset: (name) =>
      withDefaults(bridge.call('chat.savePreset', { name, sampling: store.getState().settings.sampling })),
    deletePreset: (name) => withDefaults(bridge.call('chat.savePreset', { name, sampling: null })),
    refreshForecast: () => forecast.schedule(),
    flushSettings: () => persist.flush(),
    dispose: () => (persist.flush(), forecast.cancel()),
  };
}
