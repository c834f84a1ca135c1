import { z } from 'zod';
import { SETTING_KEYS, SETTINGS } from './declaration';
import type { SettingKey } from './declaration';
import type { SettingsPatch } from './schema';

/** A settings flag the user got wrong: the flag, what was given and what to write. */
export class SettingFlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingFlagError';
  }
}

const BY_FLAG = new Map(SETTING_KEYS.map((k) => [SETTINGS[k].flag, k]));
const BY_NAME = new Map<string, SettingKey>([
  ...SETTING_KEYS.map((k) => [k, k] as const),
  ...SETTING_KEYS.map((k) => [SETTINGS[k].flag.slice(2), k] as const),
]);

/** Usage lines for every settings flag, derived from the declaration. */
export function settingsUsage(): string {
  return SETTING_KEYS.map((k) => {
    const s = SETTINGS[k];
    return `  ${`${s.flag} ${s.format(s.defaultValue as never)}`.padEnd(28)} ${s.help}`;
  }).join('\n');
}

/** The setting a name stands for: its key (`maxSeats`) or its flag without dashes (`seats`). */
export function settingByName(name: string): SettingKey | null {
  return BY_NAME.get(name) ?? null;
}

/** Parses one setting from text (a flag's value), checked by its schema. */
export function parseSettingValue<K extends SettingKey>(key: K, text: string): SettingsPatch[K] {
  const s = SETTINGS[key];
  let raw: unknown;
  try {
    raw = s.parse(text);
  } catch (error) {
    throw new SettingFlagError(`${s.flag} ${text}: ${(error as Error).message}`);
  }
  const parsed = (s.schema as z.ZodType).safeParse(raw);
  if (!parsed.success)
    throw new SettingFlagError(`${s.flag} ${text}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data as SettingsPatch[K];
}

/**
 * Takes the settings flags (`--seats 4`, `--seats=4`) out of `argv`: returns the settings they
 * set and every other argument, in order, for the command's own parser.
 */
export function takeSettingFlags(argv: readonly string[]): { patch: SettingsPatch; rest: string[] } {
  const patch: Record<string, unknown> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const at = arg.indexOf('=');
    const flag = at > 0 ? arg.slice(0, at) : arg;
    const key = BY_FLAG.get(flag);
    if (!key) {
      rest.push(arg);
      continue;
    }
    const text = at > 0 ? arg.slice(at + 1) : argv[++i];
    if (text === undefined || text === '') throw new SettingFlagError(`${flag} needs a value`);
    patch[key] = parseSettingValue(key, text);
  }
  return { patch: patch as SettingsPatch, rest };
}
