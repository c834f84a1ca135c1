import { useEffect } from 'react';
import { SETTING_KEYS, SETTINGS } from '../../../src-main/runtime/settings/declaration';
import type { AppliedSettingsPayload } from '../../../src-main/service/contract/settings-schemas';
import { useSlice, useStores } from '../../store/react';
import { Notice, Panel } from '../../components/Panel';
import { ModelsFolderLine } from '../models/AddModelPanel';
import { ApiPanel } from './ApiPanel';
import { RememberedContextPanel } from './RememberedContextPanel';
import { AppearancePanel } from './AppearancePanel';
import { SettingControl } from './SettingControl';
import { costOf, draftOf, formatSetting, patchOf } from '../../store/settings-draft';

/** When a setting takes effect, completing "Default: …; ". */
const REACH_WORDS = {
  request: 'applies to the next request',
  engine: "applies at once (from the engine's next step)",
  slots: 'applies when the models reload (Apply unloads them)',
} as const;

/**
 * Settings: appearance, the models folder, the API, and every runtime setting from its one
 * declaration as a typed control with its unit, a line saying what it does and, before Apply,
 * what applying the change costs right now. Only what the service applied is reported applied.
 */
export function SettingsView() {
  const { settings } = useStores();
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  // The provider probe answers once per start, often after Settings opened: its pushed answer wins.
  const checkedProviders = useSlice('ui', (s) => s.checkedProviders);
  const {
    current: state,
    draft,
    applied,
    error,
    isApplying: isBusy,
    setDraft,
  } = useSlice('settings', (s) => s);
  useEffect(() => void settings.getState().open(), [settings]);
  const { patch, errors } =
    state && draft ? patchOf(draft, state.settings) : { patch: {}, errors: {} as Record<string, string> };
  const cost = state ? costOf(state, patch) : { level: null, lines: [] };
  const hasErrors = Object.keys(errors).length > 0;
  const isBlocked = cost.level === 'slots' && state?.busyReason !== null;
  const apply = () => settings.getState().apply(patch);
  return (
    <div className="settings-view">
      <AppearancePanel />
      <Panel title="Models folder" className="wide">
        <p className="setting-help">Model folders put here are listed in the chat&apos;s model picker.</p>
        <ModelsFolderLine />
      </Panel>
      <Panel title="OpenAI-compatible API" className="wide">
        <ApiPanel />
      </Panel>
      <Panel title="Remembered context" className="wide">
        <RememberedContextPanel />
      </Panel>
      <Panel title="Engine" className="wide" testId="settings-panel">
        {!state || !draft ? (
          <Notice>{error ?? 'Loading settings…'}</Notice>
        ) : (
          <>
            <p className="muted">
              {state.isPersistent
                ? 'Applied changes are kept across restarts.'
                : 'History is off: changes last until the app closes.'}{' '}
              {isExpert && (
                <>
                  The same settings as <code>npm run serve</code> and <code>npm run bench</code> flags; every
                  stored run records them.
                </>
              )}
            </p>
            {SETTING_KEYS.map((key) => (
              <div key={key} className={key in patch ? 'setting-line changed' : 'setting-line'}>
                <label htmlFor={`setting-${key}`}>
                  {SETTINGS[key].label}
                  {isExpert && SETTINGS[key].term && <span className="muted"> ({SETTINGS[key].term})</span>}
                </label>
                <SettingControl
                  settingKey={key}
                  text={draft[key]}
                  providers={checkedProviders ?? state.providers}
                  areProvidersChecked={checkedProviders !== null || state.areProvidersChecked}
                  hasError={key in errors}
                  onChange={(text) => setDraft({ ...draft, [key]: text })}
                />
                <p className="setting-help" id={`setting-${key}-help`}>
                  {SETTINGS[key].help}. Default: {formatSetting(key, state.defaults[key])}
                  {SETTINGS[key].unit && state.defaults[key] !== null ? ` ${SETTINGS[key].unit}` : ''};{' '}
                  {REACH_WORDS[SETTINGS[key].level]}.
                  {isExpert && <code className="muted"> {SETTINGS[key].flag}</code>}
                </p>
                {errors[key] && (
                  <p className="notice error" data-testid="settings-error" data-setting={key} role="alert">
                    {errors[key]}
                  </p>
                )}
              </div>
            ))}
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
                disabled={cost.level === null && !hasErrors}
              >
                Discard
              </button>
              <button type="button" onClick={() => setDraft(draftOf(state.defaults))}>
                Defaults
              </button>
            </div>
            {error && (
              <p className="notice error" data-testid="settings-error" role="alert">
                {error}
              </p>
            )}
            {applied && <AppliedNote applied={applied} />}
          </>
        )}
      </Panel>
    </div>
  );
}

/** What the service says it applied (never the draft's wish). */
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
