import { useEffect } from 'react';
import { useSlice } from '../store/react';
import type { ViewName } from '../store/ui-store';
import { BenchView } from './bench/BenchView';
import { ChatView } from './chat/ChatView';
import { DashboardView } from './dashboard/DashboardView';
import { RunsView } from './runs/RunsView';
import { SettingsView } from './settings/SettingsView';
import { SlotsView } from './slots/SlotsView';
import { TracesView } from './traces/TracesView';
import { ConnectionBanner } from '../components/ConnectionBanner';
import { Nav } from '../components/Nav';

const VIEW_COMPONENTS: Record<ViewName, () => React.JSX.Element> = {
  chat: ChatView,
  dashboard: DashboardView,
  slots: SlotsView,
  runs: RunsView,
  traces: TracesView,
  bench: BenchView,
  settings: SettingsView,
};

/** The app shell: nav, connection banner, and the open view (only it is mounted). */
export function App() {
  const view = useSlice('ui', (s) => s.view);
  const status = useSlice('ui', (s) => s.status);
  const theme = useSlice('ui', (s) => s.preferences.theme);
  useEffect(() => {
    // `system` follows the system's scheme as it changes; light and dark pin it.
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      document.documentElement.dataset.theme =
        theme === 'system' ? (media.matches ? 'dark' : 'light') : theme;
    };
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
  const View = VIEW_COMPONENTS[view];
  return (
    <div className="app">
      <Nav />
      <ConnectionBanner />
      {status && !status.isPersistent && (
        <div className="banner" role="status">
          History is not being kept: {status.persistenceReason ?? 'storage unavailable'}
        </div>
      )}
      {status && status.isPersistent && status.historyState === 'damaged' && (
        <div className="banner" role="status" data-testid="history-degraded">
          The history database is damaged: the chat goes on, but read what to do ({status.persistenceReason}).
        </div>
      )}
      {status &&
        status.isPersistent &&
        (status.historyState === 'busy' || status.historyState === 'full') && (
          <div className="banner" role="status" data-testid="history-degraded">
            History is{' '}
            {status.historyState === 'full' ? 'waiting for disk space' : 'waiting for the database'}: the chat
            goes on and nothing is lost ({status.persistenceReason}).
          </div>
        )}
      <main className={`view view-${view}`}>
        <View />
      </main>
    </div>
  );
}
