/**
 * What is wrong with a forward's scores (logits) when no token can honestly be picked from
 * them: `nan` (a NaN anywhere) or `infinite` (+∞ anywhere, or no finite score at all). −∞ alone
 * is a mask, not a fault. Broken weights (a NaN or ∞ in a norm's scale) give these; sampling
 * would otherwise pick token 0 every step and the answer would look merely empty.
 */
export type BrokenScores = 'nan' | 'infinite';

/** The fault in `logits`, or null when they can be sampled. O(length), no allocation. */
export function brokenScoresOf(logits: Float32Array): BrokenScores | null {
  let hasFinite = false;
  let isInfinite = false;
  for (let i = 0; i < logits.length; i++) {
    const value = logits[i]!;
    if (Number.isNaN(value)) return 'nan';
    if (value === Infinity) isInfinite = true;
    else if (value !== -Infinity) hasFinite = true;
  }
  return isInfinite || !hasFinite ? 'infinite' : null;
}

/** The plain sentence a user reads for `broken` (an answer's error, a load's failure). */
export function describeBrokenScores(broken: BrokenScores): string {
  return `the model produced ${broken === 'nan' ? 'NaN' : 'infinite'} scores: its weights are broken`;
}
