import type { SlotEventRecord, SlotStatus } from '../../telemetry/residency/schema';

export { DEFAULT_KEEP_ALIVE } from '../../telemetry/residency/schema';
export type { KeepAlive, SlotCause, SlotStatus } from '../../telemetry/residency/schema';

/** One recorded transition of a slot as the runtime keeps it: the stored record plus its monotonic instant (ms). */
export interface SlotEvent extends SlotEventRecord {
  at: number;
}

/** The transitions the state machine allows; anything else is a bug and throws. */
export const SLOT_TRANSITIONS: Readonly<Record<SlotStatus, readonly SlotStatus[]>> = {
  empty: ['prefetching'],
  prefetching: ['resident', 'failed'],
  // A resident or active slot fails when its worker dies; the next request reloads it.
  resident: ['active', 'evicting', 'failed'],
  active: ['resident', 'failed'],
  evicting: ['empty'],
  failed: ['prefetching', 'empty'],
};

/** True when `from → to` is an edge of the slot state machine. */
export function canTransition(from: SlotStatus, to: SlotStatus): boolean {
  return SLOT_TRANSITIONS[from].includes(to);
}
