import { z } from 'zod';

/** How much of the timing detail the app shows: plain groups and one sentence, or every part. */
export const VIEW_MODES = ['simple', 'expert'] as const;
/** Light, dark, or whatever the system uses. */
export const THEMES = ['system', 'light', 'dark'] as const;

/**
 * What the app looks like for this profile, kept with the app's data (so the desktop window and
 * a browser on the same data folder agree). A new profile starts Simple, on the system's theme.
 */
export const UiPreferencesSchema = z.object({
  viewMode: z.enum(VIEW_MODES),
  theme: z.enum(THEMES),
});
export type UiPreferences = z.infer<typeof UiPreferencesSchema>;

/** What a new profile starts with. */
export const DEFAULT_UI_PREFERENCES: UiPreferences = { viewMode: 'simple', theme: 'system' };
