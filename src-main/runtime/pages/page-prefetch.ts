import type { PageIdentity } from './page-key';
import type { RamPages } from './ram-pages';

/** Pages read from disk per batch of a prefetch; the serving path gets a turn between batches. */
const PREFETCH_BATCH_PAGES = 8;

/** Why a prefetch ended: all read, the RAM budget would have evicted a page, the slot or store went, or a file was refused. */
export type PrefetchEnd = 'done' | 'budget' | 'gone' | 'refused';

/** What one prefetch did (for the log and tests). */
export interface PrefetchOutcome {
  numPages: number;
  numBytes: number;
  end: PrefetchEnd;
}

/** What a prefetch asks of the runtime before each batch. */
export interface PrefetchBudget {
  /** Bytes the K/V budget has free without evicting any cached page (running sequences' growth counted). */
  freeBytes(): number;
  /** False once the slot session or the RAM tier it reads for is gone. */
  isCurrent(): boolean;
}

/**
 * Reads a slot session's remembered context back into RAM before any request asks for it: the
 * identity's disk pages as whole chains, the most recently used first, a batch at a time. It
 * never delays a request: it yields between batches, waits while a request reads from disk,
 * and stops before a batch the budget could only hold by evicting a cached page.
 */
export async function prefetchPages(
  ramPages: RamPages,
  identity: PageIdentity,
  budget: PrefetchBudget,
): Promise<PrefetchOutcome> {
  const outcome: PrefetchOutcome = { numPages: 0, numBytes: 0, end: 'done' };
  const disk = ramPages.disk;
  if (!disk || disk.state === 'off') return outcome; // budget 0: what is on disk is not to be used
  for (const chain of disk.recentChains(identity)) {
    for (let from = 0; from < chain.length; from += PREFETCH_BATCH_PAGES) {
      await yieldTurn();
      await disk.whenNoServingRead();
      if (!budget.isCurrent()) return { ...outcome, end: 'gone' };
      // Asked now, not at the start: a request's own read may have brought some back meanwhile.
      const batch = chain
        .slice(from, from + PREFETCH_BATCH_PAGES)
        .filter((row) => !ramPages.has(identity, row.pageIndex, row.chainHash));
      if (batch.length === 0) continue;
      const numBytes = batch.reduce((sum, row) => sum + row.numBytes, 0);
      if (numBytes > budget.freeBytes()) return { ...outcome, end: 'budget' };
      const read = await disk.read(batch, false);
      if (!budget.isCurrent()) return { ...outcome, end: 'gone' };
      // Checked again: a request may have taken room while the files were read.
      if (read.numBytes > budget.freeBytes()) return { ...outcome, end: 'budget' };
      ramPages.insertPrefetched(identity, read);
      outcome.numPages += read.pages.length;
      outcome.numBytes += read.numBytes;
      if (read.refused !== null) return { ...outcome, end: 'refused' };
    }
  }
  return outcome;
}

/** Lets every callback already queued (a request's step, a reply) run first. */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
