import { describe, expect, it } from 'vitest';
import { applyLevelOf, changedSettings, describeChange } from '../../../../src-main/runtime/settings/changes';
import { settingProblem } from '../../../../src-main/runtime/settings/controls';
import { SETTING_KEYS, SETTINGS } from '../../../../src-main/runtime/settings/declaration';
import {
  parseSettingValue,
  settingByName,
  settingsUsage,
  takeSettingFlags,
} from '../../../../src-main/runtime/settings/flags';
import { DEFAULT_SETTINGS, mergeSettings, threadsOf } from '../../../../src-main/runtime/settings/schema';

describe('runtime settings: one declaration', () => {
  it('gives every setting a default its own schema accepts and a flag that reads its formatted default back', () => {
    for (const key of SETTING_KEYS) {
      const s = SETTINGS[key];
      expect(s.schema.safeParse(s.defaultValue).success).toBe(true);
      const format = s.format as (v: unknown) => string;
      expect(parseSettingValue(key, format(s.defaultValue))).toEqual(s.defaultValue);
      expect(settingsUsage()).toContain(s.flag);
    }
  });

  it('takes settings flags out of argv and leaves every other argument in order', () => {
    const { patch, rest } = takeSettingFlags([
      '--profile',
      'burst',
      '--seats',
      '2',
      '--deadline-ms=off',
      '--threads',
      'auto',
      '--json',
    ]);
    expect(patch).toEqual({ maxSeats: 2, defaultDeadlineMs: null, numThreads: null });
    expect(rest).toEqual(['--profile', 'burst', '--json']);
  });

  it('names the flag and the bound when a value is out of range or missing', () => {
    expect(() => takeSettingFlags(['--seats', '65'])).toThrow(/--seats 65: .*64/);
    expect(() => takeSettingFlags(['--page-size'])).toThrow(/--page-size needs a value/);
    expect(() => takeSettingFlags(['--default-model', 'a b'])).toThrow(/name or name:variant/);
  });

  it('reads load-time fusion as on or off, and names both when given anything else', () => {
    expect(takeSettingFlags(['--fuse-at-load', 'off']).patch).toEqual({ canFuseAtLoad: false });
    expect(takeSettingFlags(['--fuse-at-load=on']).patch).toEqual({ canFuseAtLoad: true });
    expect(() => takeSettingFlags(['--fuse-at-load', 'yes'])).toThrow(
      /--fuse-at-load yes: .*neither on nor off/,
    );
    expect(settingProblem('canFuseAtLoad', 'maybe')).toBe(
      'Rewrite models for speed takes on or off; “maybe” is not one.',
    );
    expect(() => mergeSettings(DEFAULT_SETTINGS, { canFuseAtLoad: 'off' as unknown as boolean })).toThrow();
    expect(applyLevelOf(['canFuseAtLoad'])).toBe('slots');
  });

  it('lets threads spin by default, reads --spin-threads as on or off, and reloads the models on a change', () => {
    expect(DEFAULT_SETTINGS.canSpinThreads).toBe(true);
    expect(takeSettingFlags(['--spin-threads', 'off']).patch).toEqual({ canSpinThreads: false });
    expect(takeSettingFlags(['--spin-threads=on']).patch).toEqual({ canSpinThreads: true });
    expect(() => takeSettingFlags(['--spin-threads', '1'])).toThrow(/--spin-threads 1: .*neither on nor off/);
    expect(settingProblem('canSpinThreads', 'yes')).toBe(
      'Keep threads ready while answering takes on or off; “yes” is not one.',
    );
    expect(applyLevelOf(['canSpinThreads'])).toBe('slots');
  });

  it('finds a setting by its key or its flag name (for --vary)', () => {
    expect(settingByName('seats')).toBe('maxSeats');
    expect(settingByName('maxSeats')).toBe('maxSeats');
    expect(settingByName('kv-budget-mb')).toBe('kvBudgetBytes');
    expect(settingByName('nope')).toBeNull();
  });

  it('checks settings across fields: default output tokens never exceed the output limit', () => {
    expect(() => mergeSettings(DEFAULT_SETTINGS, { maxOutputTokens: 100 })).toThrow(/must not exceed/);
    expect(mergeSettings(DEFAULT_SETTINGS, { maxOutputTokens: 100, defaultMaxTokens: 50 })).toMatchObject({
      maxOutputTokens: 100,
      defaultMaxTokens: 50,
    });
  });

  it('applies a change at the farthest level any changed setting reaches, and describes it', () => {
    const after = mergeSettings(DEFAULT_SETTINGS, { maxSeats: 2, maxQueue: 8 });
    expect(changedSettings(DEFAULT_SETTINGS, after)).toEqual(['maxSeats', 'maxQueue']);
    expect(applyLevelOf(['maxQueue'])).toBe('request');
    expect(applyLevelOf(['maxQueue', 'maxSeats'])).toBe('engine');
    expect(applyLevelOf(['maxSeats', 'pageSize'])).toBe('slots');
    expect(applyLevelOf([])).toBeNull();
    expect(describeChange(DEFAULT_SETTINGS, after)).toBe(
      'answers at once per model 4 → 2, queue limit 64 → 8',
    );
  });

  it('resolves auto threads to all cores but one, never below one', () => {
    expect(threadsOf({ numThreads: null }, 8)).toBe(7);
    expect(threadsOf({ numThreads: null }, 1)).toBe(1);
    expect(threadsOf({ numThreads: 3 }, 8)).toBe(3);
  });
});
