/** A model slot's status (DESIGN §1): prepared state for one model revision, precision, layout, provider. */
export type SlotStatus = 'empty' | 'prefetching' | 'resident' | 'active' | 'evicting' | 'failed';

/** Why a slot changed status. */
export type SlotCause = 'request' | 'prefetch' | 'ttl' | 'budget' | 'manual' | 'error';

/** How long an idle slot stays resident (Ollama's keep_alive): ms, forever, or unload after the request. */
export type KeepAlive = { kind: 'ms'; ms: number } | { kind: 'forever' } | { kind: 'unload-after-request' };

/** Ollama's default: five minutes. */
export const DEFAULT_KEEP_ALIVE: KeepAlive = { kind: 'ms', ms: 5 * 60_000 };

/** One recorded transition of a slot, with its cause; the residency timeline is built from these. */
export interface SlotEvent {
  slotId: string;
  modelId: string;
  fromStatus: SlotStatus;
  toStatus: SlotStatus;
  cause: SlotCause;
  reason: string | null;
  /** Monotonic instant (ms) and the wall-clock anchor for storage. */
  at: number;
  atWallMs: number;
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
