import { z } from 'zod';
import { SETTING_KEYS, SETTINGS } from './declaration';
import type { SettingKey } from './declaration';

type ValueOf<K extends SettingKey> = (typeof SETTINGS)[K]['defaultValue'];
/** Every runtime setting with its value (see SETTINGS for units and meaning). */
export type RuntimeSettings = { [K in SettingKey]: ValueOf<K> };

const shape = Object.fromEntries(SETTING_KEYS.map((k) => [k, SETTINGS[k].schema])) as {
  [K in SettingKey]: z.ZodType<ValueOf<K>>;
};

/** Rules that tie two settings together; each names what to change. */
function crossCheck(s: Partial<RuntimeSettings>, ctx: z.RefinementCtx): void {
  if (s.defaultMaxTokens !== undefined && s.maxOutputTokens !== undefined)
    if (s.defaultMaxTokens > s.maxOutputTokens)
      ctx.addIssue({
        code: 'custom',
        path: ['defaultMaxTokens'],
        message: `${SETTINGS.defaultMaxTokens.label.toLowerCase()} (${s.defaultMaxTokens}) must not exceed the ${SETTINGS.maxOutputTokens.label.toLowerCase()} (${s.maxOutputTokens})`,
      });
}

/** A complete set of settings, checked field by field and across fields. */
export const RuntimeSettingsSchema = z.object(shape).strict().superRefine(crossCheck);

/** Some settings to change; unknown names are refused (a typo must not be ignored). */
export const SettingsPatchSchema = z.object(shape).partial().strict();
/** See SettingsPatchSchema. */
export type SettingsPatch = Partial<RuntimeSettings>;

/**
 * Settings as a stored run recorded them: any subset (older runs predate some settings) and
 * unknown names kept as given (a newer build may have added some).
 */
export const StoredSettingsSchema = z.object(shape).partial().loose();

/** The defaults of every setting (what a fresh install runs with). */
export const DEFAULT_SETTINGS: RuntimeSettings = Object.fromEntries(
  SETTING_KEYS.map((k) => [k, SETTINGS[k].defaultValue]),
) as RuntimeSettings;

/**
 * `base` with `patch` on top, checked as a whole; throws a ZodError naming the bad field.
 * Keys of `patch` that are undefined leave the base value.
 */
export function mergeSettings(base: RuntimeSettings, patch: SettingsPatch): RuntimeSettings {
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  return RuntimeSettingsSchema.parse({ ...base, ...defined }) as RuntimeSettings;
}

/** Only the settings of `value` (a wider object, e.g. runtime options), in declaration order. */
export function pickSettings(value: RuntimeSettings): RuntimeSettings {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, value[k]])) as RuntimeSettings;
}

/** Threads a slot's session gets: the setting, or all cores but the main thread's (auto). */
export function threadsOf(settings: Pick<RuntimeSettings, 'numThreads'>, numCpus: number): number {
  return settings.numThreads ?? Math.max(1, numCpus - 1);
}
