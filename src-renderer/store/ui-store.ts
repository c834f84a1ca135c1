import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { z } from 'zod';
import type { AppStatusSchema } from '../../src-main/service/contract';
import type { ConnectionState } from '../bridge';

/** The views of the app, one per nav button. */
export const VIEWS = ['chat', 'dashboard', 'slots', 'runs', 'traces', 'bench'] as const;
/** A view's name. */
export type ViewName = (typeof VIEWS)[number];
/** What the service says about itself. */
export type AppStatus = z.infer<typeof AppStatusSchema>;

/** Which view is open, the app's status and the event feed's health. */
export interface UiState {
  view: ViewName;
  status: AppStatus | null;
  connection: ConnectionState;
  setView(view: ViewName): void;
}

/** The UI store (no service calls of its own). */
export function createUiStore(): StoreApi<UiState> {
  return createStore<UiState>()((set) => ({
    view: 'chat',
    status: null,
    connection: 'connecting',
    setView: (view) => set({ view }),
  }));
}
