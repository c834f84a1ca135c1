import type { SamplingParams } from './sampler';
import type { TokenHistory } from './token-history';

/** The penalty settings of SamplingParams. */
export type PenaltyParams = Pick<SamplingParams, 'repeatPenalty' | 'presencePenalty' | 'frequencyPenalty'>;

/** Whether the penalties change nothing (their neutral values: 1, 0, 0). */
export function arePenaltiesNeutral(params: PenaltyParams): boolean {
  return params.repeatPenalty === 1 && params.presencePenalty === 0 && params.frequencyPenalty === 0;
}

/**
 * Logits with the penalties applied, as llama.cpp applies them (a copy; `logits` is untouched):
 * a token in the repeat window has a positive logit divided by `repeatPenalty` and a negative
 * one multiplied by it; a token the answer holds c times loses `presencePenalty` once and
 * `frequencyPenalty` × c. Neutral settings return `logits` itself.
 */
export function applyPenalties(
  logits: Float32Array,
  params: PenaltyParams,
  history: TokenHistory,
): Float32Array {
  if (arePenaltiesNeutral(params)) return logits;
  const penalized = Float32Array.from(logits);
  const isInVocab = (id: number) => id >= 0 && id < penalized.length;
  if (params.repeatPenalty !== 1)
    for (const id of history.recentIds()) {
      if (!isInVocab(id)) continue;
      const logit = penalized[id]!;
      penalized[id] = logit > 0 ? logit / params.repeatPenalty : logit * params.repeatPenalty;
    }
  for (const [id, count] of history.outputCounts) {
    if (!isInVocab(id)) continue;
    penalized[id] = penalized[id]! - params.presencePenalty - params.frequencyPenalty * count;
  }
  return penalized;
}
