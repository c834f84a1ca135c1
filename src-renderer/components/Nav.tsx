import { useSlice } from '../store/react';
import { VIEWS } from '../store/ui-store';
import type { ViewName } from '../store/ui-store';
import { ViewModeSwitch } from './ViewModeSwitch';

const LABELS: Record<ViewName, string> = {
  chat: 'Chat',
  dashboard: 'Dashboard',
  slots: 'Slots',
  runs: 'Runs',
  traces: 'Traces',
  bench: 'Bench',
  settings: 'Settings',
};

/** The view switcher: one button per view, `nav-<view>` test ids. */
export function Nav() {
  const view = useSlice('ui', (s) => s.view);
  const setView = useSlice('ui', (s) => s.setView);
  return (
    <nav className="nav" aria-label="Views">
      <span className="brand">First Frame</span>
      {VIEWS.map((name) => (
        <button
          key={name}
          type="button"
          data-testid={`nav-${name}`}
          className={name === view ? 'nav-item active' : 'nav-item'}
          aria-current={name === view ? 'page' : undefined}
          onClick={() => setView(name)}
        >
          {LABELS[name]}
        </button>
      ))}
      <span className="nav-spacer" />
      <ViewModeSwitch />
    </nav>
  );
}
