import { APPLY_COSTS, applyLevelOf } from '../../src-main/runtime/settings/changes';
import { settingProblem } from '../../src-main/runtime/settings/controls';
import { SETTING_KEYS, SETTINGS } from '../../src-main/runtime/settings/declaration';
import { parseSettingValue } from '../../src-main/runtime/settings/flags';
import type { ApplyLevel, SettingKey } from '../../src-main/runtime/settings/declaration';
import type { RuntimeSettings, SettingsPatch } from '../../src-main/runtime/settings/schema';
import type { SettingsState } from '../../src-main/service/contract/settings-schemas';

/** What the form holds: each setting as text, written the way its command-line flag reads it. */
export type SettingsDraft = Record<SettingKey, string>;

/** A setting's value as the form (and its flag) writes it: `off`, `auto`, the budget in MB… */
export function formatSetting<K extends SettingKey>(key: K, value: RuntimeSettings[K]): string {
  return (SETTINGS[key].format as (v: RuntimeSettings[K]) => string)(value);
}

/** The form's text for a set of settings. */
export function draftOf(settings: RuntimeSettings): SettingsDraft {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, formatSetting(k, settings[k])])) as SettingsDraft;
}

/** The settings the draft changes (checked by each setting's own schema) and, per field, why one does not parse. */
export function patchOf(
  draft: SettingsDraft,
  current: RuntimeSettings,
): { patch: SettingsPatch; errors: Partial<Record<SettingKey, string>> } {
  const patch: Record<string, unknown> = {};
  const errors: Partial<Record<SettingKey, string>> = {};
  for (const key of SETTING_KEYS) {
    const text = draft[key].trim();
    if (text === formatSetting(key, current[key])) continue;
    const problem = settingProblem(key, text);
    if (problem) {
      errors[key] = problem;
      continue;
    }
    const value = parseSettingValue(key, text);
    if (value !== current[key]) patch[key] = value;
  }
  return { patch: patch as SettingsPatch, errors };
}

/** What applying `patch` now would cost: its level, the sentence for it, and the facts it touches. */
export function costOf(
  state: SettingsState,
  patch: SettingsPatch,
): { level: ApplyLevel | null; lines: string[] } {
  const level = applyLevelOf(Object.keys(patch) as SettingKey[]);
  if (level === null) return { level, lines: [] };
  const lines = [APPLY_COSTS[level]];
  if (level !== 'slots') return { level, lines };
  for (const slot of state.slots.filter((s) => s.status === 'resident' || s.status === 'active'))
    lines.push(
      `${slot.modelId} unloads; its next request pays a cold load${slot.lastLoadMs === null ? '' : ` (the last took ${Math.round(slot.lastLoadMs)} ms)`}`,
    );
  if (state.numCachedPages > 0)
    lines.push(
      `${state.numCachedPages} cached context page(s) (${(state.cachedPageBytes / 1048576).toFixed(1)} MiB) are dropped: the next turn of every conversation prefills its whole history`,
    );
  if (state.busyReason) lines.push(`Cannot apply now: ${state.busyReason}`);
  return { level, lines };
}
