import { z } from 'zod';

/**
 * The vocabulary of model slot residency, declared once: the runtime's slot state machine,
 * the stored slot events, the service contract and the Slots view all derive from it.
 */

/** A model slot's status: prepared state for one model revision, precision, layout and provider. */
export const SLOT_STATUSES = ['empty', 'prefetching', 'resident', 'active', 'evicting', 'failed'] as const;
export type SlotStatus = (typeof SLOT_STATUSES)[number];

/**
 * Statuses of a slot whose worker is at work (loading, running sequences, unloading): while
 * any slot is in one, the engine is not idle, and a spare worker does not start.
 */
export const BUSY_SLOT_STATUSES = [
  'prefetching',
  'active',
  'evicting',
] as const satisfies readonly SlotStatus[];

/** True when a slot in `status` is at work (BUSY_SLOT_STATUSES). */
export function isBusySlotStatus(status: SlotStatus): boolean {
  return (BUSY_SLOT_STATUSES as readonly SlotStatus[]).includes(status);
}

/**
 * Statuses of a slot whose session is built and serving (idle or running sequences): a request
 * for it runs without a load.
 */
export const WARM_SLOT_STATUSES = ['resident', 'active'] as const satisfies readonly SlotStatus[];

/** True when a slot in `status` serves without a load (WARM_SLOT_STATUSES). */
export function isWarmSlotStatus(status: SlotStatus): boolean {
  return (WARM_SLOT_STATUSES as readonly SlotStatus[]).includes(status);
}

/** Why a slot changed status. */
export const SLOT_CAUSES = ['request', 'prefetch', 'ttl', 'budget', 'manual', 'error'] as const;
export type SlotCause = (typeof SLOT_CAUSES)[number];

/** Longest keep-alive a caller may set (one week). */
export const MAX_KEEP_ALIVE_MS = 7 * 24 * 3_600_000;

/** How long an idle slot stays resident (Ollama's keep_alive): ms, forever, or unload after the request. */
export const KeepAliveSchema = z.union([
  z.object({ kind: z.literal('ms'), ms: z.number().int().min(0).max(MAX_KEEP_ALIVE_MS) }),
  z.object({ kind: z.literal('forever') }),
  z.object({ kind: z.literal('unload-after-request') }),
]);
export type KeepAlive = z.infer<typeof KeepAliveSchema>;

/** Ollama's default: five minutes. */
export const DEFAULT_KEEP_ALIVE: KeepAlive = { kind: 'ms', ms: 5 * 60_000 };

/**
 * One slot transition with its cause, as stored and pushed: the residency timeline is a list of
 * these. `atWallMs` is wall-clock epoch ms (slot events outlive the process).
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
