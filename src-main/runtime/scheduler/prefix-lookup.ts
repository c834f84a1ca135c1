import type { PageMiss } from '../../telemetry/timeline/diagnosis';
import type { DiskRead } from '../pages/disk-pages';
import type { CachedPage, RamPages } from '../pages/ram-pages';
import type { Sequence } from './sequence';

/**
 * The longest cached prefix of `seq`'s prompt, always leaving at least one token to prefill
 * (it makes the logits); none with paging off (no store: the runtime makes one only with paging
 * on) or before the slot has a page identity.
 */
export function lookupPrefix(seq: Sequence, ramPages: RamPages | null, pageSize: number): CachedPage[] {
  if (!ramPages || !seq.slot.pageIdentity) return [];
  return ramPages.lookup(seq.slot.pageIdentity, seq.prefillIds, maxPagesOf(seq, pageSize));
}

/**
 * Starts reading back from disk the pages that continue `seq`'s cached prefix, so its lookup at
 * admission finds them in RAM; null (nothing to wait for) when the disk has none of them.
 */
export function restoreFromDisk(
  seq: Sequence,
  ramPages: RamPages | null,
  isPaging: boolean,
  pageSize: number,
): Promise<DiskRead> | null {
  if (!isPaging || !ramPages || !seq.slot.pageIdentity) return null;
  return ramPages.restoreFromDisk(seq.slot.pageIdentity, seq.prefillIds, maxPagesOf(seq, pageSize));
}

/** Why the lookup found no more pages than `found` (recorded with the timeline). */
export function explainMiss(
  seq: Sequence,
  found: readonly CachedPage[],
  ramPages: RamPages | null,
  pageSize: number,
): PageMiss {
  const identity = seq.slot.pageIdentity;
  if (!ramPages || !identity)
    return {
      kind: 'paging-off',
      numCachedTokens: 0,
      numPromptTokens: seq.prefillIds.length,
      pageSize,
      divergedAtToken: null,
      changedRevisions: [],
    };
  return ramPages.explainMiss(identity, seq.prefillIds, found, maxPagesOf(seq, pageSize));
}

/** Pages a lookup may return: every full page but the one holding the prompt's last token. */
function maxPagesOf(seq: Sequence, pageSize: number): number {
  return Math.floor((seq.prefillIds.length - 1) / pageSize);
}
