import type { ApplyLevel, SettingKey } from './settings/declaration';
import type { RuntimeSettings } from './settings/schema';

/** A settings change the runtime refused, with what to do about it. */
export class SettingsRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsRefused';
  }
}

/** What applying settings did and what it cost. */
export interface AppliedSettings {
  settings: RuntimeSettings;
  changed: SettingKey[];
  level: ApplyLevel | null;
  /** `seats 2 → 4, …`, empty when nothing changed. */
  description: string;
  /** Slots unloaded by the change (each pays a cold load on its next request). */
  evictedSlotIds: string[];
  numDroppedPages: number;
  /** Wall time the change itself took (unloading slots, rebuilding the engine), ms. */
  applyMs: number;
}
