import type { RememberedSeat } from '../engine/protocol';
import type { CachedPage } from '../pages/page-store';

/** A seat waiting for its slot's next idle job, and who waits for it to be done. */
export interface PendingSeat {
  seat: RememberedSeat;
  pageHashes: string[];
}

/**
 * Remembered conversations (a chain read back from disk after a restart) waiting to be
 * assembled in their slot's worker as a retained past, one per slot (a newer one replaces it).
 * Each rides on a job of its own, sent while the slot has nothing else to run, so no request
 * waits for the copy; the conversation's next turn then finds its past as if it had just run.
 */
export class RememberedSeats {
  private readonly bySlot = new Map<string, PendingSeat>();
  private readonly waiting = new Map<string, () => void>();
  private numSeats = 0;

  /** Queues the pages (a chain from its first page) for `slotId`; resolves once seated or dropped. */
  queue(slotId: string, pages: readonly CachedPage[]): Promise<void> {
    if (pages.length === 0) return Promise.resolve();
    this.drop(slotId);
    const seqId = `remembered-${++this.numSeats}`;
    this.bySlot.set(slotId, {
      seat: { seqId, pages: pages.map((page) => page.data) },
      pageHashes: pages.map((page) => page.hash),
    });
    return new Promise((resolve) => this.waiting.set(seqId, resolve));
  }

  /** Whether a seat waits for this slot. */
  has(slotId: string): boolean {
    return this.bySlot.has(slotId);
  }

  /** The slot's seat, now handed to a job (null: none). */
  take(slotId: string): PendingSeat | null {
    const pending = this.bySlot.get(slotId) ?? null;
    this.bySlot.delete(slotId);
    return pending;
  }

  /** The job that carried `seqId`'s seat was answered (or failed). */
  settled(seqId: string): void {
    this.waiting.get(seqId)?.();
    this.waiting.delete(seqId);
  }

  /** Drops the slot's waiting seat (its worker is gone, or a newer one replaces it). */
  drop(slotId: string): void {
    const pending = this.take(slotId);
    if (pending) this.settled(pending.seat.seqId);
  }

  /** Drops every seat and releases everyone waiting (the engine is being replaced). */
  clear(): void {
    this.bySlot.clear();
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
  }
}
