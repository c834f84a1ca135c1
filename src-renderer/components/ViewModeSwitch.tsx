import { useState } from 'react';
import { changePreferences } from '../store/preferences';
import { useSlice, useStores } from '../store/react';
import type { UiPreferences } from '../../src-main/service/contract/ui-schemas';

const MODES: { mode: UiPreferences['viewMode']; label: string; hint: string }[] = [
  {
    mode: 'simple',
    label: 'Simple',
    hint: 'Plain words: where the wait went, in four groups and one sentence',
  },
  {
    mode: 'expert',
    label: 'Expert',
    hint: 'Every timeline part, revisions, formulas and the full reports',
  },
];

/** The Simple/Expert switch (`view-mode`, `data-mode`): how much timing detail every view shows. */
export function ViewModeSwitch() {
  const stores = useStores();
  const mode = useSlice('ui', (s) => s.preferences.viewMode);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div className="view-mode" role="group" aria-label="Detail" data-testid="view-mode" data-mode={mode}>
      {MODES.map((m) => (
        <button
          key={m.mode}
          type="button"
          className={m.mode === mode ? 'active' : ''}
          aria-pressed={m.mode === mode}
          title={problem ?? m.hint}
          onClick={() => void changePreferences(stores, { viewMode: m.mode }).then(setProblem)}
        >
          {m.label}
        </button>
      ))}
    </div>
  );
}
