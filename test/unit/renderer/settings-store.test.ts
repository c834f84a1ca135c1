import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src-main/runtime/settings/schema';
import type { RuntimeSettings } from '../../../src-main/runtime/settings/schema';
import type {
  AppliedSettingsPayload,
  SettingsState,
} from '../../../src-main/service/contract/settings-schemas';
import { draftOf } from '../../../src-renderer/store/settings-draft';
import { createSettingsStore } from '../../../src-renderer/store/settings-store';
import { BridgeDouble } from './bridge-double';

const stateOf = (settings: RuntimeSettings): SettingsState => ({
  settings,
  defaults: DEFAULT_SETTINGS,
  busyReason: null,
  slots: [],
  numCachedPages: 0,
  cachedPageBytes: 0,
  isPersistent: true,
  providers: [],
  areProvidersChecked: true,
});

const appliedOf = (settings: RuntimeSettings): AppliedSettingsPayload => ({
  settings,
  changed: ['maxSeats'],
  level: 'engine',
  description: 'seats per slot',
  evictedSlotIds: [],
  numDroppedPages: 0,
  applyMs: 3,
});

describe('the settings store', () => {
  it("seeds the draft from the service's settings on open, and a re-read keeps an edited draft", async () => {
    const store = createSettingsStore(new BridgeDouble({ 'settings.get': () => stateOf(DEFAULT_SETTINGS) }));
    await store.getState().open();
    expect(store.getState().draft).toEqual(draftOf(DEFAULT_SETTINGS));
    const edited = { ...store.getState().draft!, maxSeats: '7' };
    store.getState().setDraft(edited);
    await store.getState().load();
    expect(store.getState().draft).toEqual(edited);
    await store.getState().open();
    expect(store.getState().draft).toEqual(draftOf(DEFAULT_SETTINGS));
  });

  it('applies the patch, reports what the service applied and makes that the draft', async () => {
    const applied = { ...DEFAULT_SETTINGS, maxSeats: 3 };
    let current = DEFAULT_SETTINGS;
    const bridge = new BridgeDouble({
      'settings.get': () => stateOf(current),
      'settings.apply': () => ((current = applied), appliedOf(applied)),
    });
    const store = createSettingsStore(bridge);
    await store.getState().open();
    store.getState().setDraft({ ...store.getState().draft!, maxSeats: '5' });
    await store.getState().apply({ maxSeats: 5 });
    expect(bridge.inputsOf('settings.apply')).toEqual([{ patch: { maxSeats: 5 } }]);
    // The service's answer, never the draft's wish.
    expect(store.getState()).toMatchObject({ applied: appliedOf(applied), error: null, isApplying: false });
    expect(store.getState().draft?.maxSeats).toBe(draftOf(applied).maxSeats);
    expect(store.getState().current?.settings.maxSeats).toBe(3);
  });

  it('keeps the draft and says why when the service refuses, and reads its settings again', async () => {
    const bridge = new BridgeDouble({ 'settings.get': () => stateOf(DEFAULT_SETTINGS) });
    const store = createSettingsStore(bridge);
    await store.getState().open();
    const edited = { ...store.getState().draft!, maxSeats: '5' };
    store.getState().setDraft(edited);
    await store.getState().apply({ maxSeats: 5 });
    expect(store.getState()).toMatchObject({
      draft: edited,
      applied: null,
      error: 'settings.apply not answered',
    });
    expect(bridge.inputsOf('settings.get')).toHaveLength(2);
  });
});
