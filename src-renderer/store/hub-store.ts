import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { HubChoice, HubDownload, HubRepo } from '../../src-main/service/contract/hub-schemas';
import type { Bridge } from '../bridge/bridge';

/**
 * A repository on the model hub as "Get from Hugging Face" shows it: what it holds and the
 * last refusal. The downloads themselves are followed by the slots store (pushed events).
 */
export interface HubState {
  /** The repository last looked up; null before a look, or after a failed one. */
  repo: HubRepo | null;
  problem: string | null;
  isLooking: boolean;
  /** "Add a model" opened: forget an earlier visit's repository and problem. */
  open(): void;
  /** Lists what `text` (a repository id or its address) holds that runs here. */
  look(text: string): Promise<void>;
  /** Starts downloading one of the looked-up repository's choices. */
  start(choice: HubChoice): Promise<void>;
  /** Starts a failed download again where it stopped; resolves with the error message, or null. */
  resume(download: HubDownload): Promise<string | null>;
  cancel(downloadId: string): Promise<void>;
}

/** The hub store: looks repositories up and starts, resumes and cancels downloads through the bridge. */
export function createHubStore(bridge: Bridge): StoreApi<HubState> {
  return createStore<HubState>()((set, get) => ({
    repo: null,
    problem: null,
    isLooking: false,
    open: () => set({ repo: null, problem: null, isLooking: false }),
    async look(text) {
      set({ isLooking: true });
      const result = await bridge.call('hub.files', { repo: text });
      set({
        isLooking: false,
        repo: result.ok ? result.value : null,
        problem: result.ok ? null : result.error.message,
      });
    },
    async start(choice) {
      const { repo } = get();
      if (!repo) return;
      const result = await bridge.call('hub.download', {
        repo: repo.repo,
        revision: repo.revision,
        filePath: choice.filePath,
      });
      set({ problem: result.ok ? null : result.error.message });
    },
    async resume(d) {
      const result = await bridge.call('hub.download', {
        repo: d.repo,
        revision: d.revision,
        filePath: d.filePath,
      });
      return result.ok ? null : result.error.message;
    },
    async cancel(downloadId) {
      await bridge.call('hub.cancel', { downloadId });
    },
  }));
}
