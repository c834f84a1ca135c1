import { APPLY_LEVELS, SETTING_KEYS, SETTINGS } from './declaration';
import type { ApplyLevel, SettingKey } from './declaration';
import type { RuntimeSettings } from './schema';

/** The settings that differ between two sets, in declaration order. */
export function changedSettings(before: RuntimeSettings, after: RuntimeSettings): SettingKey[] {
  return SETTING_KEYS.filter((k) => before[k] !== after[k]);
}

/** The farthest level any of `keys` reaches (null when nothing changes). */
export function applyLevelOf(keys: readonly SettingKey[]): ApplyLevel | null {
  let level = -1;
  for (const key of keys) level = Math.max(level, APPLY_LEVELS.indexOf(SETTINGS[key].level));
  return level < 0 ? null : APPLY_LEVELS[level]!;
}

/** What applying a change at `level` costs, in words a user can weigh before pressing Apply. */
export const APPLY_COSTS: Record<ApplyLevel, string> = {
  request: 'takes effect for the next request; nothing is rebuilt',
  engine: 'the scheduler uses it from its next step; running requests keep their seats, nothing reloads',
  slots:
    'needs an idle engine: every resident model slot is unloaded and reloads on its next request (a cold first token), and every cached context page is dropped',
};

/** `seats 2 → 4, page size 16 → 32` for a change, in declaration order. */
export function describeChange(before: RuntimeSettings, after: RuntimeSettings): string {
  return changedSettings(before, after)
    .map((k) => {
      const s = SETTINGS[k];
      const format = s.format as (value: unknown) => string;
      return `${s.label.toLowerCase()} ${format(before[k])} → ${format(after[k])}`;
    })
    .join(', ');
}
