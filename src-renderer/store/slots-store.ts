import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { EngineKind } from '../../src-main/runtime/remote/endpoint-input';
import type { EndpointSnapshot } from '../../src-main/service/contract/endpoint-schemas';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { ClearedConversions, ConversionCache } from '../../src-main/service/contract/model-schemas';
import type { ModelEntry, PageStats, SlotEvent, SlotSnapshot } from '../../src-main/service/contract/schemas';
import type { KeepAlive } from '../../src-main/telemetry/residency/schema';
import type { Bridge } from '../bridge/bridge';
import { createThrottle } from './throttle';

/** Slots, models, their transition history and the context page totals. */
export interface SlotsState {
  models: ModelEntry[];
  /** Remote endpoints; their models are the remote slots the picker lists. */
  endpoints: EndpointSnapshot[];
  slots: SlotSnapshot[];
  events: SlotEvent[];
  pages: PageStats | null;
  /** The GGUF conversion cache's folders and bytes (re-read with the pages). */
  conversionCache: ConversionCache | null;
  error: string | null;
  refresh(): Promise<void>;
  refreshPages(): Promise<void>;
  /** Re-reads the context page totals alone (Settings shows the disk tier's). */
  refreshPageStats(): Promise<void>;
  /**
   * Removes the remembered context kept on disk, one model's (by id) or every model's (null),
   * then re-reads the totals; resolves with the number of pages removed, or the error message.
   */
  forgetPages(modelId: string | null): Promise<number | string>;
  prefetch(modelId: string): Promise<void>;
  evict(slotId: string): Promise<void>;
  keep(slotId: string, keepAlive: KeepAlive): Promise<void>;
  /** Adds an endpoint (checked first); resolves with the error message, or null when it was added. */
  addEndpoint(input: NewEndpoint): Promise<string | null>;
  removeEndpoint(endpointId: string): Promise<void>;
  /** Asks every endpoint's /v1/models again (reachability, models, last error). */
  checkEndpoints(): Promise<void>;
  /** Removes the converted folders no loaded model reads; resolves with what it did, or the error message. */
  clearConversionCache(): Promise<ClearedConversions | string>;
  onEvents(events: readonly PushedEvent[]): void;
}

/** What the add-endpoint form sends (the key never comes back). */
export interface NewEndpoint {
  name: string;
  baseUrl: string;
  apiKey: string | null;
  engine: EngineKind;
  /** Save it even though its check failed (the form offers this after showing the error). */
  saveUnreachable?: boolean;
}

const MAX_SLOT_EVENTS = 5_000;

/**
 * The slots store. A pushed slot event is appended to the history at once; the cards are
 * re-read from the service (throttled), since one transition can change several fields.
 */
export function createSlotsStore(bridge: Bridge): StoreApi<SlotsState> {
  const store = createStore<SlotsState>()((set, get) => {
    const act = async (run: () => Promise<{ ok: boolean; error?: { message: string } }>) => {
      const result = await run();
      set({ error: result.ok ? null : (result.error?.message ?? 'failed') });
      await get().refresh();
    };
    return {
      models: [],
      endpoints: [],
      slots: [],
      events: [],
      pages: null,
      conversionCache: null,
      error: null,
      async refresh() {
        const [models, slots, endpoints] = await Promise.all([
          bridge.call('models.list', {}),
          bridge.call('slots.list', {}),
          bridge.call('endpoints.list', {}),
        ]);
        if (models.ok) set({ models: models.value });
        if (endpoints.ok) set({ endpoints: endpoints.value });
        if (slots.ok) set({ slots: slots.value });
        if (!slots.ok) set({ error: slots.error.message });
      },
      async refreshPages() {
        const [pages, events, cache] = await Promise.all([
          bridge.call('pages.stats', {}),
          bridge.call('slots.events', { limit: MAX_SLOT_EVENTS }),
          bridge.call('models.conversionCache', {}),
        ]);
        if (pages.ok) set({ pages: pages.value });
        if (events.ok) set({ events: events.value });
        if (cache.ok) set({ conversionCache: cache.value });
      },
      async refreshPageStats() {
        const pages = await bridge.call('pages.stats', {});
        if (pages.ok) set({ pages: pages.value });
      },
      async forgetPages(modelId) {
        const result = await bridge.call('pages.forget', modelId === null ? {} : { modelId });
        await get().refreshPageStats();
        return result.ok ? result.value.numPages : result.error.message;
      },
      async clearConversionCache() {
        const result = await bridge.call('models.clearConversionCache', {});
        const cache = await bridge.call('models.conversionCache', {});
        if (cache.ok) set({ conversionCache: cache.value });
        return result.ok ? result.value : result.error.message;
      },
      prefetch: (modelId) => act(() => bridge.call('slots.prefetch', { modelId })),
      evict: (slotId) => act(() => bridge.call('slots.evict', { slotId })),
      keep: (slotId, keepAlive) => act(() => bridge.call('slots.keep', { slotId, keepAlive })),
      async addEndpoint(input) {
        const result = await bridge.call('endpoints.add', input);
        await get().refresh();
        return result.ok ? null : result.error.message;
      },
      removeEndpoint: (endpointId) => act(() => bridge.call('endpoints.remove', { endpointId })),
      checkEndpoints: () => act(() => bridge.call('endpoints.check', {})),
      onEvents(events) {
        const checked = events.findLast((e) => e.name === 'endpoints.checked');
        if (checked?.name === 'endpoints.checked') set({ endpoints: checked.payload.endpoints });
        // A conversion's bytes done reach its card as they come, not at the next poll.
        const progress = new Map(
          events.flatMap((e) =>
            e.name === 'slot.conversion' ? [[e.payload.slotId, e.payload.progress]] : [],
          ),
        );
        if (progress.size > 0)
          set({
            slots: get().slots.map((s) =>
              progress.has(s.slotId) ? { ...s, conversion: progress.get(s.slotId)! } : s,
            ),
          });
        const slotEvents = events.flatMap((e) => (e.name === 'slot.event' ? [e.payload] : []));
        if (slotEvents.length === 0) return;
        set({ events: [...get().events, ...slotEvents].slice(-MAX_SLOT_EVENTS) });
        reread.schedule();
      },
    };
  });
  const reread = createThrottle(() => void store.getState().refresh(), 250);
  return store;
}
