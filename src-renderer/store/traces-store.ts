import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { MethodOutput } from '../../src-main/service/contract/methods';
import type { Bridge } from '../bridge/bridge';

/** A trace import's answer, with the file it read and whether bad lines refused it all. */
export type TraceImport = MethodOutput<'traces.import'> & { fileName: string; wasStrict: boolean };

/** The file last picked, kept so a refused import can take its good lines without picking it again. */
export interface PickedTrace {
  fileName: string;
  text: string;
}

/** The trace import as Traces shows it: the file picked, what the service made of it, the last error. */
export interface TracesState {
  picked: PickedTrace | null;
  result: TraceImport | null;
  error: string | null;
  isImporting: boolean;
  /** Traces opened: forget what an earlier visit imported. */
  open(): void;
  /** Imports `file`; with `skipBadLines` its good lines go in even when some are bad. */
  importTrace(file: PickedTrace, skipBadLines: boolean): Promise<void>;
}

/** The traces store: imports trace files through the bridge. */
export function createTracesStore(bridge: Bridge): StoreApi<TracesState> {
  return createStore<TracesState>()((set) => ({
    picked: null,
    result: null,
    error: null,
    isImporting: false,
    open: () => set({ picked: null, result: null, error: null, isImporting: false }),
    async importTrace(file, skipBadLines) {
      set({ picked: file, isImporting: true });
      const answer = await bridge.call('traces.import', { ...file, skipBadLines });
      set({
        isImporting: false,
        error: answer.ok ? null : answer.error.message,
        result: answer.ok ? { ...answer.value, fileName: file.fileName, wasStrict: !skipBadLines } : null,
      });
    },
  }));
}
