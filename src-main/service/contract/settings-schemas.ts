import { z } from 'zod';
import { APPLY_LEVELS, SETTING_KEYS } from '../../runtime/settings/declaration';
import { RuntimeSettingsSchema } from '../../runtime/settings/schema';
import { ProviderAvailabilitySchema } from '../../runtime/slot-worker/providers';

/** A slot as the Settings panel weighs it: what a rebuild would unload and what its last load took. */
const SlotCostSchema = z.object({
  slotId: z.string(),
  modelId: z.string(),
  status: z.string(),
  /** Read + build + warm-up of its last load (ms): what its next cold request pays again. */
  lastLoadMs: z.number().nullable(),
});

/** The runtime's settings now, the defaults, and what a change would cost right now. */
export const SettingsStateSchema = z.object({
  settings: RuntimeSettingsSchema,
  defaults: RuntimeSettingsSchema,
  /** Why a change that rebuilds slots cannot be applied now, or null when the engine is idle. */
  busyReason: z.string().nullable(),
  slots: z.array(SlotCostSchema),
  numCachedPages: z.number().int(),
  cachedPageBytes: z.number(),
  /** Whether changes are kept across restarts (false with history off). */
  isPersistent: z.boolean(),
  /**
   * Each execution provider and whether it can start here (why not, when it cannot). Until the
   * one probe of this start answers, only cpu is offered (`areProvidersChecked` false); the answer then
   * comes as the `providers.checked` event.
   */
  providers: z.array(ProviderAvailabilitySchema),
  /** Whether `providers` is the probe's answer (false: it is still running). */
  areProvidersChecked: z.boolean(),
});
export type SettingsState = z.infer<typeof SettingsStateSchema>;

/** What applying a change did and what it cost. */
export const AppliedSettingsSchema = z.object({
  settings: RuntimeSettingsSchema,
  changed: z.array(z.enum(SETTING_KEYS as [string, ...string[]])),
  level: z.enum(APPLY_LEVELS).nullable(),
  description: z.string(),
  evictedSlotIds: z.array(z.string()),
  numDroppedPages: z.number().int(),
  applyMs: z.number(),
});
export type AppliedSettingsPayload = z.infer<typeof AppliedSettingsSchema>;
