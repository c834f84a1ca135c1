export {
  APPLY_LEVELS,
  MAX_DEADLINE_MS,
  MAX_INPUT_TOKENS_BOUND,
  MAX_OUTPUT_TOKENS_BOUND,
  SETTING_KEYS,
  SETTINGS,
} from './declaration';
export type { ApplyLevel, SettingKey, SettingSpec } from './declaration';
export {
  DEFAULT_SETTINGS,
  RuntimeSettingsSchema,
  SettingsPatchSchema,
  StoredSettingsSchema,
  mergeSettings,
  pickSettings,
  threadsOf,
} from './schema';
export type { RuntimeSettings, SettingsPatch } from './schema';
export { SettingFlagError, parseSettingValue, settingByName, settingsUsage, takeSettingFlags } from './flags';
export { APPLY_COSTS, applyLevelOf, changedSettings, describeChange } from './changes';
export { describeSettingsError, settingProblem, settingRange, settingRule } from './controls';
