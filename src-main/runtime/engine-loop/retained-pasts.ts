import { MAX_RETAINED_PASTS } from '../engine/protocol';
import type { Sequence } from '../scheduler';

/**
 * Main-thread side of the workers' retained pasts: which finished sequences' pasts each slot's
 * worker probably still holds, and their page hashes. A new sequence whose cached pages are a
 * prefix of one of them names it in its first prefill chunk; the worker checks it still holds
 * it and otherwise copies the pages as always, so a stale entry here costs nothing but a miss.
 */
export class RetainedPastIndex {
  private readonly bySlot = new Map<string, Array<{ seqId: string; pageHashes: string[] }>>();

  /** Notes a sequence leaving its slot with its K/V (the worker retains up to its pages). */
  note(seq: Sequence): void {
    if (seq.heldPages.length === 0) return;
    const list = this.bySlot.get(seq.slot.slotId) ?? [];
    list.push({ seqId: seq.seqId, pageHashes: seq.heldPages.map((page) => page.hash) });
    while (list.length > MAX_RETAINED_PASTS) list.shift();
    this.bySlot.set(seq.slot.slotId, list);
  }

  /**
   * The most recently retained past that starts with exactly `seq`'s held pages (the worker
   * can cut a longer one), taken out of the index; null when none matches.
   */
  take(seq: Sequence): string | null {
    const list = this.bySlot.get(seq.slot.slotId) ?? [];
    const hashes = seq.heldPages.map((page) => page.hash);
    if (hashes.length === 0) return null;
    const index = list.findLastIndex(
      (entry) =>
        entry.pageHashes.length >= hashes.length && hashes.every((hash, i) => entry.pageHashes[i] === hash),
    );
    if (index < 0) return null;
    return list.splice(index, 1)[0]!.seqId;
  }
}
