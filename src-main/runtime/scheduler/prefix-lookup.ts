import type { PageMiss } from '../../telemetry/timeline';
import type { CachedPage, PageStore } from '../pages';
import type { Sequence } from './sequence';

/**
 * The longest cached prefix of `seq`'s prompt, always leaving at least one token to prefill
 * (it makes the logits); none with paging off (no store: the runtime makes one only with paging
 * on) or before the slot has a page identity.
 */
export function lookupPrefix(seq: Sequence, store: PageStore | null, pageSize: number): CachedPage[] {
  if (!store || !seq.slot.pageIdentity) return [];
  return store.lookup(seq.slot.pageIdentity, seq.prefillIds, maxPagesOf(seq, pageSize));
}

/** Why the lookup found no more pages than `found` (recorded with the timeline). */
export function explainMiss(
  seq: Sequence,
  found: readonly CachedPage[],
  store: PageStore | null,
  pageSize: number,
): PageMiss {
  const identity = seq.slot.pageIdentity;
  if (!store || !identity)
    return {
      kind: 'paging-off',
      numCachedTokens: 0,
      numPromptTokens: seq.prefillIds.length,
      pageSize,
      divergedAtToken: null,
      changedRevisions: [],
    };
  return store.explainMiss(identity, seq.prefillIds, found, maxPagesOf(seq, pageSize));
}

/** Pages a lookup may return: every full page but the one holding the prompt's last token. */
function maxPagesOf(seq: Sequence, pageSize: number): number {
  return Math.floor((seq.prefillIds.length - 1) / pageSize);
}
