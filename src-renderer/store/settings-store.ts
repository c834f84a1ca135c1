import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { AppliedSettingsPayload, SettingsState } from '../../src-main/service/contract/settings-schemas';
import type { Bridge } from '../bridge/bridge';
import { draftOf } from './settings-draft';
import type { SettingsDraft } from './settings-draft';

/**
 * The runtime settings as Settings edits them: what the service holds, the form's draft of a
 * change, and what the last Apply really applied (never the draft's wish).
 */
export interface SettingsEditState {
  /** The service's settings, defaults and providers; null until the first read answers. */
  current: SettingsState | null;
  /** The form's text per setting; null until the first read answers. */
  draft: SettingsDraft | null;
  applied: AppliedSettingsPayload | null;
  error: string | null;
  isApplying: boolean;
  /** Settings opened: forget what an earlier visit left (draft, note, error) and read afresh. */
  open(): Promise<void>;
  /** Reads the service's settings; the draft is seeded only when there is none. */
  load(): Promise<void>;
  setDraft(draft: SettingsDraft): void;
  /** Sends the patch the draft makes; the draft becomes what the service applied. */
  apply(patch: Record<string, unknown>): Promise<void>;
}

/** The settings store: reads and applies the runtime settings through the bridge. */
export function createSettingsStore(bridge: Bridge): StoreApi<SettingsEditState> {
  return createStore<SettingsEditState>()((set, get) => ({
    current: null,
    draft: null,
    applied: null,
    error: null,
    isApplying: false,
    async open() {
      set({ current: null, draft: null, applied: null, error: null, isApplying: false });
      await get().load();
    },
    async load() {
      const result = await bridge.call('settings.get', {});
      if (!result.ok) return set({ error: result.error.message });
      set({ current: result.value, draft: get().draft ?? draftOf(result.value.settings) });
    },
    setDraft: (draft) => set({ draft }),
    async apply(patch) {
      set({ isApplying: true, applied: null });
      const result = await bridge.call('settings.apply', { patch });
      set({ isApplying: false, error: result.ok ? null : result.error.message });
      if (result.ok) set({ applied: result.value, draft: draftOf(result.value.settings) });
      await get().load();
    },
  }));
}
