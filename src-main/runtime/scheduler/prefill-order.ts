import type { Sequence } from './sequence';

/** One prefill chunk to run: `tokenIds` start where the sequence's prefill stands. */
export interface PrefillPlan {
  seq: Sequence;
  tokenIds: number[];
  isFirstChunk: boolean;
  isLastChunk: boolean;
}

/**
 * The prompt with the fewest tokens left to prefill goes next (admission order breaks ties):
 * a short prompt seated behind a long one gets its first token after one chunk, not after
 * the long prompt's whole prefill; prompts of equal length keep first-come order.
 */
export function nextToPrefill(running: readonly Sequence[]): Sequence | null {
  let next: Sequence | null = null;
  for (const seq of running) {
    if (seq.status !== 'prefilling') continue;
    const isBefore =
      !next ||
      numLeftToPrefill(seq) < numLeftToPrefill(next) ||
      (numLeftToPrefill(seq) === numLeftToPrefill(next) && seq.admittedOrder < next.admittedOrder);
    if (isBefore) next = seq;
  }
  return next;
}

/** The sequence's next chunk: at most `chunkTokens` tokens (null: the whole rest). */
export function nextChunk(seq: Sequence, chunkTokens: number | null): PrefillPlan {
  const fromIndex = prefillFrom(seq);
  const remaining = seq.prefillIds.length - fromIndex;
  const size = chunkTokens === null ? remaining : Math.min(remaining, chunkTokens);
  return {
    seq,
    tokenIds: seq.prefillIds.slice(fromIndex, fromIndex + size),
    isFirstChunk: !seq.hasStartedPrefill,
    isLastChunk: fromIndex + size === seq.prefillIds.length,
  };
}

/** Where the sequence's next prefill chunk starts: after its cached pages, or where it left off. */
function prefillFrom(seq: Sequence): number {
  return seq.hasStartedPrefill ? seq.numComputed : seq.numCachedTokens;
}

/** Prompt tokens the sequence still has to prefill. */
function numLeftToPrefill(seq: Sequence): number {
  return seq.prefillIds.length - prefillFrom(seq);
}
