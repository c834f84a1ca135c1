import { MAX_RETAINED_PASTS } from '../slot-worker/protocol';
import type { CachedPage } from '../pages/ram-pages';
import type { Slot } from '../slots/slot';

/**
 * Main-thread side of the workers' retained pasts: which finished sequences' pasts each slot's
 * worker probably still holds, and their page hashes. A new sequence whose cached pages are a
 * prefix of one of them names it in its first prefill chunk; the worker checks it still holds
 * it and otherwise copies the pages as always, so a stale entry here costs nothing but a miss.
 */
export class RetainedPastIndex {
  private readonly bySlot = new Map<string, Array<{ seqId: string; pageHashes: string[] }>>();

  /** Notes a sequence leaving its slot with its K/V (the worker retains up to these pages). */
  note(slot: Slot, seqId: string, pageHashes: string[]): void {
    if (pageHashes.length === 0) return;
    const list = this.bySlot.get(slot.slotId) ?? [];
    list.push({ seqId, pageHashes });
    while (list.length > MAX_RETAINED_PASTS) list.shift();
    this.bySlot.set(slot.slotId, list);
  }

  /**
   * The most recently retained past on `slot` that starts with exactly the pages `held` (the
   * worker can cut a longer one), taken out of the index; null when none matches.
   */
  take(slot: Slot, held: readonly CachedPage[]): string | null {
    const list = this.bySlot.get(slot.slotId) ?? [];
    const hashes = held.map((page) => page.hash);
    if (hashes.length === 0) return null;
    const index = list.findLastIndex(
      (entry) =>
        entry.pageHashes.length >= hashes.length && hashes.every((hash, i) => entry.pageHashes[i] === hash),
    );
    if (index < 0) return null;
    return list.splice(index, 1)[0]!.seqId;
  }

  /** Every past the workers probably hold, per slot, the least recently retained first. */
  entries(): Array<{ slotId: string; pageHashes: string[] }> {
    return [...this.bySlot].flatMap(([slotId, list]) =>
      list.map((entry) => ({ slotId, pageHashes: entry.pageHashes })),
    );
  }

  /** The slot's worker is gone, and every past it held with it. */
  forget(slotId: string): void {
    this.bySlot.delete(slotId);
  }
}
