import { useCallback, useEffect, useState } from 'react';
import { SETTING_KEYS, SETTINGS } from '../../../src-main/runtime/settings';
import type { AppliedSettingsPayload, SettingsState } from '../../../src-main/service/contract';
import { useStores } from '../../store';
import { Notice, Panel } from '../../components';
import { costOf, draftOf, formatSetting, patchOf } from './settings-draft';
import type { SettingsDraft } from './settings-draft';

/**
 * Settings: every runtime setting from its one declaration, written as its command-line flag
 * reads it, with what applying the change costs right now (nothing, the next step, or every
 * slot reloaded and the context pages dropped) before the user presses Apply.
 */
export function SettingsView() {
  const { bridge } = useStores();
  const [state, setState] = useState<SettingsState | null>(null);
  const [draft, setDraft] = useState<SettingsDraft | null>(null);
  const [applied, setApplied] = useState<AppliedSettingsPayload | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const load = useCallback(async () => {
    const result = await bridge.call('settings.get', {});
    if (!result.ok) return setError(result.error.message);
    setState(result.value);
    setDraft((d) => d ?? draftOf(result.value.settings));
  }, [bridge]);
  useEffect(() => void load(), [load]);
  if (!state || !draft) return <Notice>{error ?? 'Loading settings…'}</Notice>;
  const { patch, errors } = patchOf(draft, state.settings);
  const cost = costOf(state, patch);
  const hasErrors = Object.keys(errors).length > 0;
  const isBlocked = cost.level === 'slots' && state.busyReason !== null;
  const apply = async () => {
    setIsBusy(true);
    const result = await bridge.call('settings.apply', { patch });
    setIsBusy(false);
    setError(result.ok ? null : result.error.message);
    if (result.ok) {
      setApplied(result.value);
      setDraft(draftOf(result.value.settings));
    }
    await load();
  };
  return (
    <div className="settings-view">
      <Panel title="Runtime settings" className="wide" testId="settings-panel">
        <p className="muted">
          The same settings as <code>npm run serve</code> and <code>npm run bench</code> flags; every stored
          run records them.{' '}
          {state.isPersistent
            ? 'Applied changes are kept across restarts.'
            : 'History is off: changes last until the app closes.'}
        </p>
        <table className="data-table settings-table">
          <thead>
            <tr>
              <th scope="col">setting</th>
              <th scope="col">value</th>
              <th scope="col">default</th>
              <th scope="col">applies</th>
            </tr>
          </thead>
          <tbody>
            {SETTING_KEYS.map((key) => (
              <tr key={key} className={key in patch ? 'changed' : undefined} title={SETTINGS[key].help}>
                <th scope="row">
                  {SETTINGS[key].label} <code className="muted">{SETTINGS[key].flag}</code>
                </th>
                <td>
                  <input
                    aria-label={SETTINGS[key].label}
                    data-testid={`setting-${key}`}
                    value={draft[key]}
                    onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
                  />
                  {errors[key] && <span className="notice error">{errors[key]}</span>}
                </td>
                <td>{formatSetting(key, state.defaults[key])}</td>
                <td>
                  {SETTINGS[key].level === 'request'
                    ? 'next request'
                    : SETTINGS[key].level === 'engine'
                      ? 'next step'
                      : 'rebuilds slots'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {cost.lines.length > 0 && (
          <ul className="apply-cost" data-testid="settings-cost" data-level={cost.level ?? ''}>
            {cost.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
        <div className="actions">
          <button
            type="button"
            className="primary"
            data-testid="settings-apply"
            disabled={isBusy || hasErrors || cost.level === null || isBlocked}
            onClick={() => void apply()}
          >
            Apply
          </button>
          <button
            type="button"
            onClick={() => setDraft(draftOf(state.settings))}
            disabled={cost.level === null}
          >
            Discard
          </button>
          <button type="button" onClick={() => setDraft(draftOf(state.defaults))}>
            Defaults
          </button>
        </div>
        {error && <Notice tone="error">{error}</Notice>}
        {applied && <AppliedNote applied={applied} />}
      </Panel>
    </div>
  );
}

function AppliedNote(props: { applied: AppliedSettingsPayload }) {
  const a = props.applied;
  if (a.level === null) return <Notice>Nothing changed.</Notice>;
  return (
    <p className="notice info" data-testid="settings-applied">
      Applied {a.description} in {a.applyMs.toFixed(0)} ms
      {a.evictedSlotIds.length > 0 ? `; unloaded ${a.evictedSlotIds.join(', ')}` : ''}
      {a.numDroppedPages > 0 ? `; dropped ${a.numDroppedPages} context page(s)` : ''}.
    </p>
  );
}
