import { KvBatch } from './kv-batch';
import { MAX_RETAINED_PASTS } from './protocol';

/**
 * Worker side: the assembled past of recently finished sequences, trimmed to their completed
 * pages. A conversation's next turn hits exactly those pages, so its prefill can start from
 * this past instead of copying every page into a new tensor. Trimming is a copy too, but it
 * runs when the finished sequence is dropped, normally in the slot's quiet spell after the
 * answer, not on the next request's critical path. At most MAX_RETAINED_PASTS are kept, least
 * recently retained first out; they are extra K/V memory beside the pages (not in the budget).
 */
export class RetainedPasts {
  private readonly pasts = new Map<string, KvBatch>();

  /** Keeps `seqId`'s first `numColumns` tokens from `batch` (nothing when there are none). */
  keep(batch: KvBatch, seqId: string, numColumns: number): void {
    if (numColumns <= 0) return;
    this.pasts.set(seqId, KvBatch.prefix(batch, seqId, numColumns));
    while (this.pasts.size > MAX_RETAINED_PASTS) this.pasts.delete(this.pasts.keys().next().value!);
  }

  /**
   * The past of `fromSeq`, cut to `numColumns` and handed to `seqId`, or null when it is no
   * longer held or too short. A taken past leaves the cache (the new sequence now owns it).
   */
  take(fromSeq: string, numColumns: number, seqId: string): KvBatch | null {
    const past = this.pasts.get(fromSeq);
    if (!past || past.numColumns < numColumns) return null;
    this.pasts.delete(fromSeq);
    // The cache owned the past alone: a longer one is cut where it lies.
    return past.numColumns === numColumns ? past.renamed(seqId) : past.cutInPlace(numColumns, seqId);
  }

  /** Number of pasts held (for tests). */
  get size(): number {
    return this.pasts.size;
  }
}
