import { useState } from 'react';
import { THEMES, VIEW_MODES } from '../../../src-main/service/contract/ui-schemas';
import type { UiPreferences } from '../../../src-main/service/contract/ui-schemas';
import { Notice, Panel } from '../../components/Panel';
import { changePreferences } from '../../store/preferences';
import { useSlice, useStores } from '../../store/react';

const THEME_LABELS: Record<UiPreferences['theme'], string> = {
  system: 'as the system',
  light: 'light',
  dark: 'dark',
};
const MODE_LABELS: Record<UiPreferences['viewMode'], string> = {
  simple: 'Simple: plain words, four groups per answer',
  expert: 'Expert: every timeline part, revisions and formulas',
};

/** Theme and Simple/Expert: applied at once and kept for this profile. */
export function AppearancePanel() {
  const stores = useStores();
  const preferences = useSlice('ui', (s) => s.preferences);
  const [problem, setProblem] = useState<string | null>(null);
  const change = (patch: Partial<UiPreferences>) => void changePreferences(stores, patch).then(setProblem);
  return (
    <Panel title="Appearance" className="wide" testId="appearance-panel">
      <div className="setting-line">
        <label htmlFor="pref-theme">Theme</label>
        <select
          id="pref-theme"
          data-testid="pref-theme"
          value={preferences.theme}
          onChange={(e) => change({ theme: e.target.value as UiPreferences['theme'] })}
        >
          {THEMES.map((theme) => (
            <option key={theme} value={theme}>
              {THEME_LABELS[theme]}
            </option>
          ))}
        </select>
        <p className="setting-help">Colours of every view; changes at once.</p>
      </div>
      <div className="setting-line">
        <label htmlFor="pref-mode">Detail</label>
        <select
          id="pref-mode"
          value={preferences.viewMode}
          onChange={(e) => change({ viewMode: e.target.value as UiPreferences['viewMode'] })}
        >
          {VIEW_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {MODE_LABELS[mode]}
            </option>
          ))}
        </select>
        <p className="setting-help">The same switch as Simple / Expert at the top right.</p>
      </div>
      {problem && <Notice tone="error">{problem}</Notice>}
    </Panel>
  );
}
