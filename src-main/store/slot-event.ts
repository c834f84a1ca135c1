import { z } from 'zod';

/** A model slot's status (DESIGN §1). */
export const SLOT_STATUSES = ['empty', 'prefetching', 'resident', 'active', 'evicting', 'failed'] as const;
/** Why a slot changed status. */
export const SLOT_CAUSES = ['request', 'prefetch', 'ttl', 'budget', 'manual', 'error'] as const;

/**
 * One slot transition as stored: `slot_events` row. `atWallMs` is wall-clock epoch ms (slot
 * events outlive the process, so they are anchored to the wall clock, not the monotonic one).
 */
export const SlotEventRecordSchema = z.object({
  slotId: z.string().min(1),
  modelId: z.string(),
  fromStatus: z.enum(SLOT_STATUSES),
  toStatus: z.enum(SLOT_STATUSES),
  cause: z.enum(SLOT_CAUSES),
  reason: z.string().nullable(),
  atWallMs: z.number().finite(),
});
export type SlotEventRecord = z.infer<typeof SlotEventRecordSchema>;
