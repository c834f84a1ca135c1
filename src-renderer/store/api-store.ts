import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { ApiStatus } from '../../src-main/service/contract/methods';
import type { Bridge } from '../bridge/bridge';

/** The OpenAI-compatible API as Settings shows it: where it listens, and the last refusal. */
export interface ApiState {
  /** Null until the first read answers. */
  status: ApiStatus | null;
  error: string | null;
  /** Settings opened: forget an earlier visit's error and read the status afresh. */
  open(): Promise<void>;
  /**
   * Turns the API the other way. `portText` and `apiKeyText` are the form's fields as typed
   * (empty: any free port, no key); a port that is not a whole number from 0 to 65,535 is
   * refused here with a sentence, before the service is asked.
   */
  toggle(portText: string, apiKeyText: string): Promise<void>;
}

/** The API store: reads and switches the host's OpenAI-compatible API through the bridge. */
export function createApiStore(bridge: Bridge): StoreApi<ApiState> {
  return createStore<ApiState>()((set, get) => ({
    status: null,
    error: null,
    async open() {
      set({ status: null, error: null });
      const result = await bridge.call('api.status', {});
      if (result.ok) set({ status: result.value });
      else set({ error: result.error.message });
    },
    async toggle(portText, apiKeyText) {
      const { status } = get();
      if (!status) return;
      const port = portText.trim();
      const portNumber = Number(port);
      if (port !== '' && !(Number.isInteger(portNumber) && portNumber >= 0 && portNumber <= 65_535))
        return set({ error: 'The port takes a whole number from 0 to 65,535 (0 or empty: any free port).' });
      const result = await bridge.call('api.setEnabled', {
        isEnabled: !status.isEnabled,
        apiKey: apiKeyText.trim() || null,
        ...(port === '' ? {} : { port: portNumber }),
      });
      set({ error: result.ok ? null : result.error.message });
      if (result.ok) set({ status: result.value });
    },
  }));
}
