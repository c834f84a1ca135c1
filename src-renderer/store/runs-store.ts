import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { MethodOutput } from '../../src-main/service/contract/methods';
import type { RunComparison, RunSummary, Slo } from '../../src-main/service/contract/report-schemas';
import type { ExportFormat } from '../../src-main/telemetry/trace/export-formats';
import type { Bridge } from '../bridge/bridge';

/** Where a desktop save put an export (filePath null: the user cancelled the dialog). */
export type SavedExport = MethodOutput<'runs.saveExport'>;

/** The stored runs, the comparison last asked for, and the last refusal. */
export interface RunsState {
  runs: RunSummary[];
  comparison: RunComparison | null;
  error: string | null;
  /** Runs opened: forget an earlier visit's comparison and error and list the runs afresh. */
  open(): Promise<void>;
  load(): Promise<void>;
  /** Compares two to eight runs against the objectives; fewer runs, or no objectives, asks nothing. */
  compare(runIds: string[], slo: Slo | null): Promise<void>;
  /** Renames a run, then lists the runs again; resolves with the error message, or null. */
  rename(runId: string, name: string): Promise<string | null>;
  /** Deletes a run (and a comparison that showed it); resolves with the error message, or null. */
  remove(runId: string): Promise<string | null>;
  /** The desktop app's save: streams an export to a file the user picks; resolves with where, or the error message. */
  saveExport(runId: string | null, format: ExportFormat): Promise<SavedExport | string>;
  /** A browser's download address for an export, or null where the host saves through a dialog. */
  exportUrl(format: ExportFormat, runId: string | null): string | null;
  /** A finished benchmark has filed a run: the list is read again. */
  onEvents(events: readonly PushedEvent[]): void;
}

/** The runs store: lists, compares, renames, deletes and exports stored runs through the bridge. */
export function createRunsStore(bridge: Bridge): StoreApi<RunsState> {
  return createStore<RunsState>()((set, get) => ({
    runs: [],
    comparison: null,
    error: null,
    async open() {
      set({ comparison: null, error: null });
      await get().load();
    },
    async load() {
      const result = await bridge.call('runs.list', {});
      if (result.ok) set({ runs: result.value });
      else set({ error: result.error.message });
    },
    async compare(runIds, slo) {
      if (runIds.length < 2 || !slo) return;
      const result = await bridge.call('runs.compare', { runIds, slo });
      set({ error: result.ok ? null : result.error.message, comparison: result.ok ? result.value : null });
    },
    async rename(runId, name) {
      const result = await bridge.call('runs.rename', { runId, name });
      await get().load();
      return result.ok ? null : result.error.message;
    },
    async remove(runId) {
      const result = await bridge.call('runs.delete', { runId });
      if (result.ok && get().comparison?.configurations.some((c) => c.runIds.includes(runId)))
        set({ comparison: null });
      await get().load();
      return result.ok ? null : result.error.message;
    },
    async saveExport(runId, format) {
      const result = await bridge.call('runs.saveExport', { runId, format });
      return result.ok ? result.value : result.error.message;
    },
    exportUrl: (format, runId) => bridge.exportUrl(format, runId),
    onEvents(events) {
      if (events.some((e) => e.name === 'bench.done')) void get().load();
    },
  }));
}
