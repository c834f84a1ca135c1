import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { HubChoice, HubDownload, HubRepo } from '../../src-main/service/contract/hub-schemas';
import type { Bridge } from '../bridge/bridge';
import type { SlotsState } from './slots-store';

/**
 * The model hub as "Get from Hugging Face" shows it: the repository looked up (what it holds,
 * the last refusal) and this session's downloads.
 */
export interface HubState {
  /** Downloads from the hub this session, oldest first (kept current by `hub.download` events). */
  downloads: HubDownload[];
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
  /** Reads this session's downloads (at start, and after the event feed comes back). */
  refresh(): Promise<void>;
  /** Puts pushed download snapshots in place; a finished one is listed, so the model list is re-read. */
  onEvents(events: readonly PushedEvent[]): void;
}

/**
 * The hub store: looks repositories up and starts, resumes and cancels downloads through the
 * bridge; the model list a finished download joins is the slots store's, which it re-reads.
 */
export function createHubStore(bridge: Bridge, slots: StoreApi<SlotsState>): StoreApi<HubState> {
  return createStore<HubState>()((set, get) => ({
    downloads: [],
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
    async refresh() {
      const downloads = await bridge.call('hub.downloads', {});
      if (downloads.ok) set({ downloads: downloads.value });
    },
    onEvents(events) {
      const downloads = events.flatMap((e) => (e.name === 'hub.download' ? [e.payload] : []));
      if (downloads.length === 0) return;
      set({ downloads: mergeDownloads(get().downloads, downloads) });
      // A finished download is listed by now: show it in the lists and the picker.
      if (downloads.some((d) => d.state === 'done')) void slots.getState().refresh();
    },
  }));
}

/** The downloads with newer snapshots put in place; a new try of a model replaces its earlier ones. */
function mergeDownloads(known: readonly HubDownload[], newer: readonly HubDownload[]): HubDownload[] {
  const byId = new Map(known.map((d) => [d.downloadId, d]));
  for (const d of newer) {
    for (const [id, k] of byId) if (k.modelName === d.modelName && id !== d.downloadId) byId.delete(id);
    byId.set(d.downloadId, d);
  }
  return [...byId.values()];
}
