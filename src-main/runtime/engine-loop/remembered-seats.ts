import type { RememberedSeat } from '../slot-worker/protocol';
import type { CachedPage } from '../pages/ram-pages';

/** A seat waiting for its slot's next idle job, and who waits for it to be done. */
export interface PendingSeat {
  seat: RememberedSeat;
  pageHashes: string[];
}

/**
 * Remembered conversations (chains read back from disk after a restart) waiting to be
 * assembled in their slot's worker as retained pasts, a list per slot (a newer list replaces
 * it). Each rides on a job of its own, sent while the slot has nothing else to run, so no
 * request waits for more than one copy; a conversation's next turn then finds its past as if
 * it had just run.
 */
export class RememberedSeats {
  private readonly bySlot = new Map<string, PendingSeat[]>();
  private readonly waiting = new Map<string, () => void>();
  private numSeats = 0;

  /**
   * Queues chains (each a list of pages from its first) for `slotId`, seated in this order (the
   * last one seated is the worker's most recent past); resolves once every one is seated or dropped.
   */
  queue(slotId: string, chains: ReadonlyArray<readonly CachedPage[]>): Promise<void> {
    this.drop(slotId);
    const pending = chains
      .filter((pages) => pages.length > 0)
      .map((pages) => ({
        seat: { seqId: `remembered-${++this.numSeats}`, pages: pages.map((page) => page.data) },
        pageHashes: pages.map((page) => page.hash),
      }));
    if (pending.length === 0) return Promise.resolve();
    this.bySlot.set(slotId, pending);
    const seated = pending.map(
      ({ seat }) => new Promise<void>((resolve) => this.waiting.set(seat.seqId, resolve)),
    );
    return Promise.all(seated).then(() => undefined);
  }

  /** Whether a seat waits for this slot. */
  has(slotId: string): boolean {
    return (this.bySlot.get(slotId)?.length ?? 0) > 0;
  }

  /** The slot's next seat, now handed to a job (null: none). */
  take(slotId: string): PendingSeat | null {
    const list = this.bySlot.get(slotId);
    const pending = list?.shift() ?? null;
    if (list?.length === 0) this.bySlot.delete(slotId);
    return pending;
  }

  /** The job that carried `seqId`'s seat was answered (or failed). */
  settled(seqId: string): void {
    this.waiting.get(seqId)?.();
    this.waiting.delete(seqId);
  }

  /** Drops the slot's waiting seats (its worker is gone, or a newer list replaces them). */
  drop(slotId: string): void {
    for (const pending of this.bySlot.get(slotId) ?? []) this.settled(pending.seat.seqId);
    this.bySlot.delete(slotId);
  }

  /** Drops every seat and releases everyone waiting (the engine is being replaced). */
  clear(): void {
    this.bySlot.clear();
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
  }
}
