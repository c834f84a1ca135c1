import type { UiPreferences } from '../../src-main/service/contract/ui-schemas';
import type { Stores } from './create-stores';

/**
 * Changes the profile's look (Simple/Expert, theme): shown at once, kept by the service; a
 * refusal puts the old value back and says why in the chat's notice line.
 */
export async function changePreferences(
  stores: Stores,
  patch: Partial<UiPreferences>,
): Promise<string | null> {
  const before = stores.ui.getState().preferences;
  stores.ui.setState({ preferences: { ...before, ...patch } });
  const result = await stores.bridge.call('ui.setPreferences', patch);
  if (result.ok) {
    stores.ui.setState({ preferences: result.value });
    return null;
  }
  stores.ui.setState({ preferences: before });
  return result.error.message;
}

/** Reads the profile's look from the service (the defaults stay when it cannot answer). */
export async function loadPreferences(stores: Stores): Promise<void> {
  const result = await stores.bridge.call('ui.preferences', {});
  if (result.ok) stores.ui.setState({ preferences: result.value });
}
