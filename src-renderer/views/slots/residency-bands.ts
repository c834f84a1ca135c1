import type { SlotEvent } from '../../../src-main/service/contract/schemas';
import type { SlotStatus } from '../../../src-main/telemetry/residency/schema';

/** One stretch of a slot's life in one status, with the transition that began it. */
export interface ResidencyBand {
  status: SlotStatus;
  fromWallMs: number;
  toWallMs: number;
  cause: SlotEvent['cause'];
  reason: string | null;
}

/** One slot's bands over the shown span. */
export interface ResidencyRow {
  slotId: string;
  modelId: string;
  bands: ResidencyBand[];
}

/**
 * Turns the transition history into bands per slot: each event opens a band of its new status
 * that lasts until the slot's next event (or `nowMs`). Events are sorted by time first.
 */
export function residencyRows(events: readonly SlotEvent[], nowMs: number): ResidencyRow[] {
  const bySlot = new Map<string, SlotEvent[]>();
  for (const e of [...events].sort((a, b) => a.atWallMs - b.atWallMs)) {
    const list = bySlot.get(e.slotId) ?? [];
    list.push(e);
    bySlot.set(e.slotId, list);
  }
  return [...bySlot.entries()].map(([slotId, list]) => ({
    slotId,
    modelId: list[0]!.modelId,
    bands: list.map((e, i) => ({
      status: e.toStatus,
      fromWallMs: e.atWallMs,
      toWallMs: Math.max(e.atWallMs, list[i + 1]?.atWallMs ?? nowMs),
      cause: e.cause,
      reason: e.reason,
    })),
  }));
}

/** The time span every row is drawn against: first event → now. */
export function spanOf(
  rows: readonly ResidencyRow[],
  nowMs: number,
): { fromWallMs: number; toWallMs: number } {
  let fromWallMs = nowMs;
  for (const row of rows) fromWallMs = Math.min(fromWallMs, row.bands[0]?.fromWallMs ?? nowMs);
  return { fromWallMs, toWallMs: Math.max(nowMs, fromWallMs + 1) };
}
