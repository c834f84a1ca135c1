import { KvBatch } from './kv-batch';
import { MAX_RETAINED_PASTS } from './protocol';

/**
 * Worker side: the assembled past of recently finished sequences, trimmed to their completed
 * pages. A conversation's next turn hits exactly those pages, so its prefill can start from
 * this past instead of copying every page into a new tensor. A sequence that was alone in its
 * batch is kept whole (its tail past the last complete page is cut where it lies when taken);
 * one that shared a batch is copied out when dropped. At most MAX_RETAINED_PASTS are kept, least
 * recently retained first out; they are extra K/V memory beside the pages (not in the budget).
 */
export class RetainedPasts {
  /** Each past with the number of its leading tokens that are retained (its completed pages). */
  private readonly pasts = new Map<string, { past: KvBatch; numColumns: number }>();

  /**
   * Keeps `seqId`'s first `numColumns` tokens from `batch` (nothing when there are none). The
   * caller hands `batch` over: a one-row, unpadded batch of `seqId` is kept as it is, its tail
   * cut off where it lies when a next turn takes it (no move), so a drop copies nothing.
   */
  keep(batch: KvBatch, seqId: string, numColumns: number): void {
    if (numColumns <= 0) return;
    const row = batch.rows[0]!;
    const isWhole = batch.rows.length === 1 && row.seqId === seqId && row.numPad === 0;
    const past = isWhole && row.numTokens >= numColumns ? batch : KvBatch.prefix(batch, seqId, numColumns);
    this.pasts.set(seqId, { past, numColumns });
    while (this.pasts.size > MAX_RETAINED_PASTS) this.pasts.delete(this.pasts.keys().next().value!);
  }

  /**
   * The past of `fromSeq`, cut to `numColumns` and handed to `seqId`, or null when it is no
   * longer held or too short. A taken past leaves the cache (the new sequence now owns it).
   */
  take(fromSeq: string, numColumns: number, seqId: string): KvBatch | null {
    const held = this.pasts.get(fromSeq);
    if (!held || held.numColumns < numColumns) return null;
    this.pasts.delete(fromSeq);
    const { past } = held;
    // The cache owned the past alone: a longer one is cut where it lies.
    return past.numColumns === numColumns ? past.renamed(seqId) : past.cutInPlace(numColumns, seqId);
  }

  /** Number of pasts held (for tests). */
  get size(): number {
    return this.pasts.size;
  }
}
