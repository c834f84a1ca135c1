import type { Slot } from '../slots/slot';
import type { KeepAlive } from '../../telemetry/residency/schema';
import type { Sequence } from './sequence';

/**
 * What the ledger tells the slot registry: a slot with a seated sequence is active, never
 * evicted; the last one leaving makes it idle. The registry keeps no count of its own.
 */
export interface SeatHolder {
  acquire(slot: Slot): void;
  /** A seat was given back; `numLeft` sequences still sit on the slot. */
  release(slot: Slot, numLeft: number, keepAlive: KeepAlive | null): void;
}

/** Why a seat is given back: a finish applies the request's keep-alive, a preemption does not. */
export type SeatRelease = 'finished' | 'preempted';

/**
 * Sequence seats, the rows of a slot's decode batch, with one owner (like nano-vllm's block
 * manager for blocks): granting, counting and releasing all happen here, and every count of
 * a slot's seated sequences (the slot view's, the registry's idea of "in use") is read from here.
 * `maxSeats` is read live from the settings, so a change applies from the next admission.
 */
export class SeatLedger {
  private readonly seated = new Map<string, Sequence[]>();

  constructor(
    private readonly settings: { readonly maxSeats: number },
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
    return this.seatedOn(slot).length < this.settings.maxSeats;
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
  }

  /** Takes `seq`'s seat back if it holds one; returns whether it did. */
  release(seq: Sequence, why: SeatRelease): boolean {
    const list = this.seated.get(seq.slot.slotId);
    const index = list?.indexOf(seq) ?? -1;
    if (!list || index < 0) return false;
    list.splice(index, 1);
    if (list.length === 0) this.seated.delete(seq.slot.slotId);
    const keepAlive = why === 'finished' ? (seq.request.keepAlive ?? null) : null;
    this.holder.release(seq.slot, list.length, keepAlive);
    return true;
  }
}
