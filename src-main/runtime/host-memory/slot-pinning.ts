/** The `slot: {pinned, pinned_reason, locked_bytes, resident_pct}` JSON shape of bench output and the slot API. */
import type { HostBuffer } from './types';

/** Pinning facts of one slot's host buffer; resident_pct is 0–100 or null when unknown. */
export interface SlotPinningJson {
  pinned: boolean;
  pinned_reason: string;
  locked_bytes: number;
  resident_pct: number | null;
}

/** Summarizes a slot's host buffer; residency is the buffer's own (mincore) unless given. */
export function slotPinningJson(buffer: HostBuffer, residentPct?: number | null): SlotPinningJson {
  const pct = residentPct !== undefined ? residentPct : (buffer.residency()?.residentPct ?? null);
  return {
    pinned: buffer.isLocked,
    pinned_reason: buffer.lockReason,
    locked_bytes: buffer.lockedBytes,
    resident_pct: pct === null ? null : Math.round(pct * 10) / 10,
  };
}
