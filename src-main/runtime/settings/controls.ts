import type { z } from 'zod';
import { SETTINGS } from './declaration';
import type { SettingKey } from './declaration';

/** A number setting's bounds in the units it is written in (the K/V budget in MB). */
export function settingRange(key: SettingKey): { min: number; max: number } | null {
  const spec = SETTINGS[key];
  if (spec.control !== 'number') return null;
  let schema = spec.schema as z.ZodType & { unwrap?: () => z.ZodType };
  if (schema.def.type === 'nullable' && schema.unwrap) schema = schema.unwrap();
  const { minValue, maxValue } = schema as unknown as { minValue: number | null; maxValue: number | null };
  const scale = spec.scale ?? 1;
  return { min: Math.ceil((minValue ?? 0) / scale), max: Math.floor((maxValue ?? Infinity) / scale) };
}

/** What a number setting accepts, in words: "a whole number from 1 to 64 requests, or off". */
export function settingRule(key: SettingKey): string {
  const spec = SETTINGS[key];
  const range = settingRange(key);
  if (spec.control === 'switch') return 'on or off';
  if (!range) return spec.nullWord ? `one of the choices, or ${spec.nullWord}` : 'one of the choices';
  const unit = spec.unit ? ` ${spec.unit}` : '';
  const whole = spec.scale === undefined ? 'a whole number' : 'a number';
  const or = spec.nullWord ? `, or ${spec.nullWord}` : '';
  return `${whole} from ${range.min.toLocaleString('en-US')} to ${range.max.toLocaleString('en-US')}${unit}${or}`;
}

/**
 * Why `text` is not a valid value for the setting, in words ("Answers at once per model takes a whole
 * number from 1 to 64 requests; "0" is not one."), or null when it is.
 */
export function settingProblem(key: SettingKey, text: string): string | null {
  const spec = SETTINGS[key];
  const trimmed = text.trim();
  if (spec.nullWord && trimmed === spec.nullWord) return null;
  const bad = `${spec.label} takes ${settingRule(key)}; “${trimmed || '(empty)'}” is not one.`;
  let value: unknown;
  try {
    value = spec.parse(trimmed);
  } catch {
    return bad;
  }
  return (spec.schema as z.ZodType).safeParse(value).success ? null : bad;
}

/** A refused settings change in words: each setting named by its label with what it takes. */
export function describeSettingsError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const key = issue.path[0];
      if (typeof key !== 'string' || !(key in SETTINGS)) return issue.message;
      const spec = SETTINGS[key as SettingKey];
      // Cross-setting rules already speak in words; a bound broken gets the setting's rule.
      return issue.code === 'custom'
        ? issue.message
        : `${spec.label} takes ${settingRule(key as SettingKey)}.`;
    })
    .join(' ');
}
