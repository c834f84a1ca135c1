import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { ModelRemoval } from '../../src-main/service/contract/hub-schemas';
import type { DiscoveryState } from '../../src-main/service/contract/model-schemas';
import type { Bridge } from '../bridge/bridge';
import type { SlotsState } from './slots-store';

/** What the service would delete for a model, or why it will not (a loaded model, a bundled one). */
export interface RemovalAnswer {
  /** What a confirmation offers to delete; null when the service refuses or cannot answer. */
  removal: ModelRemoval | null;
  /** The service's refusal or error in its own sentence; null when there is none. */
  problem: string | null;
}

/**
 * Where models come from besides the bundled one: the models folder (open it, delete a model
 * from it) and the places other programs keep models (listed only once discovery is on).
 */
export interface ModelSourcesState {
  /** Discovery's switch and each place's state; null until the first read answers. */
  discovery: DiscoveryState | null;
  discoveryProblem: string | null;
  /** "Add a model" opened: forget an earlier visit's problem and read discovery afresh. */
  openDiscovery(): Promise<void>;
  /** Turns discovery on or off, then re-reads the model list (its models come or go). */
  setDiscovery(isEnabled: boolean): Promise<void>;
  /** Opens the models folder on the desktop; resolves with the error message, or null. */
  openModelsFolder(): Promise<string | null>;
  /** Asks what deleting this model would remove (nothing is removed yet). */
  askRemoval(modelId: string): Promise<RemovalAnswer>;
  /** Deletes the model's files, then re-reads the model list; resolves with the error message, or null. */
  deleteModel(modelId: string): Promise<string | null>;
}

/** The model sources store; the model list itself stays with the slots store, which it re-reads. */
export function createModelSourcesStore(
  bridge: Bridge,
  slots: StoreApi<SlotsState>,
): StoreApi<ModelSourcesState> {
  return createStore<ModelSourcesState>()((set) => ({
    discovery: null,
    discoveryProblem: null,
    async openDiscovery() {
      set({ discovery: null, discoveryProblem: null });
      const result = await bridge.call('models.discovery', {});
      if (result.ok) set({ discovery: result.value });
      else set({ discoveryProblem: result.error.message });
    },
    async setDiscovery(isEnabled) {
      const result = await bridge.call('models.setDiscovery', { isEnabled });
      set({ discoveryProblem: result.ok ? null : result.error.message });
      if (result.ok) set({ discovery: result.value });
      await slots.getState().refresh();
    },
    async openModelsFolder() {
      const result = await bridge.call('app.openModelsFolder', {});
      return result.ok ? null : result.error.message;
    },
    async askRemoval(modelId) {
      const result = await bridge.call('models.removal', { modelId });
      if (!result.ok) return { removal: null, problem: result.error.message };
      return { removal: result.value.refusal === null ? result.value : null, problem: result.value.refusal };
    },
    async deleteModel(modelId) {
      const result = await bridge.call('models.delete', { modelId });
      await slots.getState().refresh();
      return result.ok ? null : result.error.message;
    },
  }));
}
