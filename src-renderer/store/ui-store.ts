import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { z } from 'zod';
import { DEFAULT_UI_PREFERENCES } from '../../src-main/service/contract/ui-schemas';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { AppStatusSchema } from '../../src-main/service/contract/methods';
import type { Problem } from '../../src-main/service/contract/schemas';
import type { SettingsState } from '../../src-main/service/contract/settings-schemas';
import type { UiPreferences } from '../../src-main/service/contract/ui-schemas';
import type { ConnectionState } from '../bridge/bridge';

/** The views of the app, one per nav button. */
export const VIEWS = ['chat', 'dashboard', 'slots', 'runs', 'traces', 'bench', 'settings'] as const;
/** A view's name. */
export type ViewName = (typeof VIEWS)[number];
/** What the service says about itself. */
export type AppStatus = z.infer<typeof AppStatusSchema>;

/** Problems kept for the Slots view; the log file keeps them all. */
export const MAX_PROBLEMS_SHOWN = 50;

/** Which view is open, the app's status, the problems the core reported and the event feed's health. */
export interface UiState {
  view: ViewName;
  status: AppStatus | null;
  /** Problems the core logged (failed unloads, prunes, stores, exports), oldest first. */
  problems: Problem[];
  connection: ConnectionState;
  /** Runs the Runs view should open compared (an experiment's arms), or empty. */
  runsToCompare: string[];
  /** Simple or Expert, and the theme (kept by the service for this profile). */
  preferences: UiPreferences;
  /** Whether the "Add a model" panel is open over the current view. */
  isAddModelOpen: boolean;
  /** The execution providers as the one probe of this start found them (pushed); null until it answers. */
  checkedProviders: SettingsState['providers'] | null;
  setAddModelOpen(isOpen: boolean): void;
  setView(view: ViewName): void;
  setStatus(status: AppStatus): void;
  onEvents(events: readonly PushedEvent[]): void;
  /** Opens the Runs view with these runs picked for comparison. */
  compareRuns(runIds: string[]): void;
}

/** The UI store (no service calls of its own). */
export function createUiStore(): StoreApi<UiState> {
  return createStore<UiState>()((set, get) => ({
    view: 'chat',
    status: null,
    problems: [],
    connection: 'connecting',
    runsToCompare: [],
    preferences: DEFAULT_UI_PREFERENCES,
    isAddModelOpen: false,
    checkedProviders: null,
    setAddModelOpen: (isAddModelOpen) => set({ isAddModelOpen }),
    setView: (view) => set({ view }),
    setStatus: (status) => set({ status, problems: status.recentProblems.slice(-MAX_PROBLEMS_SHOWN) }),
    onEvents(events) {
      const added = events.flatMap((e) => (e.name === 'app.problem' ? [e.payload] : []));
      if (added.length > 0) set({ problems: [...get().problems, ...added].slice(-MAX_PROBLEMS_SHOWN) });
      const checked = events.findLast((e) => e.name === 'providers.checked');
      if (checked?.name === 'providers.checked') set({ checkedProviders: checked.payload.providers });
    },
    compareRuns: (runIds) => set({ view: 'runs', runsToCompare: runIds }),
  }));
}
