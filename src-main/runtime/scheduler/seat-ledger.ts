import type { KeepAlive, Slot } from '../slots';
import type { Sequence } from './sequence';

/** What the ledger tells the slot registry: a slot with a seated sequence is active, never evicted. */
export interface SeatHolder {
  acquire(slot: Slot): void;
  release(slot: Slot, keepAlive?: KeepAlive | null): void;
}

/** Why a seat is given back: a finish applies the request's keep-alive, a preemption does not. */
export type SeatRelease = 'finished' | 'preempted';

/**
 * Sequence seats, the rows of a slot's decode batch, with one owner (like nano-vllm's block
 * manager for blocks): granting, counting and releasing all happen here, and only here does
 * the slot registry hear about them, so a slot's count of active sequences is this ledger's.
 */
export class SeatLedger {
  private readonly seated = new Map<string, Sequence[]>();

  constructor(
    readonly maxSeats: number,
    private readonly holder: SeatHolder,
  ) {}

  /** Seated sequences of a slot, in admission order. */
  seatedOn(slot: Slot): readonly Sequence[] {
    return this.seated.get(slot.slotId) ?? [];
  }

  /** Seated sequences across all slots. */
  get numSeated(): number {
    let total = 0;
    for (const list of this.seated.values()) total += list.length;
    return total;
  }

  /** Every seated sequence, slot by slot. */
  allSeated(): Sequence[] {
    return [...this.seated.values()].flat();
  }

  /** True when the slot has a seat free. */
  hasFreeSeat(slot: Slot): boolean {
    return this.seatedOn(slot).length < this.maxSeats;
  }

  /** True while `seq` holds a seat. */
  isSeated(seq: Sequence): boolean {
    return this.seatedOn(seq.slot).includes(seq);
  }

  /** Gives `seq` a seat on its slot; the slot becomes active with its first. */
  grant(seq: Sequence): void {
    if (this.isSeated(seq)) throw new Error(`${seq.seqId} already holds a seat`);
    if (!this.hasFreeSeat(seq.slot)) throw new Error(`${seq.slot.slotId} has no free seat`);
    let list = this.seated.get(seq.slot.slotId);
    if (!list) this.seated.set(seq.slot.slotId, (list = []));
    list.push(seq);
    this.holder.acquire(seq.slot);
    this.assertCounted(seq.slot);
  }

  /** Takes `seq`'s seat back if it holds one; returns whether it did. */
  release(seq: Sequence, why: SeatRelease): boolean {
    const list = this.seated.get(seq.slot.slotId);
    const index = list?.indexOf(seq) ?? -1;
    if (!list || index < 0) return false;
    list.splice(index, 1);
    this.holder.release(seq.slot, why === 'finished' ? (seq.request.keepAlive ?? null) : null);
    this.assertCounted(seq.slot);
    return true;
  }

  /** The registry's count of a slot's active sequences is this ledger's, always. */
  private assertCounted(slot: Slot): void {
    const numSeated = this.seatedOn(slot).length;
    if (slot.numActiveSequences !== numSeated)
      throw new Error(
        `${slot.slotId}: ${numSeated} seats granted but the slot counts ${slot.numActiveSequences}`,
      );
  }
}
