import { brokenScoresOf, greedyOrBroken } from '../sampling/broken-scores';
import { applyPenalties, arePenaltiesNeutral } from '../sampling/penalties';
import { SeededRandom } from '../sampling/rng';
import { sampleToken } from '../sampling/sampler';
import { TokenHistory } from '../sampling/token-history';
import type { SamplerStart } from '../sampling/sampler';
import type { SampledToken } from './protocol';
import { markStep } from './step-trace';

/**
 * A sequence's sampler inside its slot's worker: its settings, its RNG, whose state goes back
 * to the main thread with every token (so a preempted sequence resumes the same draws), and,
 * when a penalty is set, the tokens it looks back on.
 */
export class SeqSampler {
  private readonly random: SeededRandom;
  private readonly history: TokenHistory | null;

  constructor(private readonly spec: SamplerStart) {
    this.random = new SeededRandom(spec.rngState);
    this.history = arePenaltiesNeutral(spec) ? null : new TokenHistory(spec.history);
  }

  /**
   * Picks the next token from last-position logits (a padded vocabulary's tail excluded); when
   * they are NaN or infinite, says so instead (token 0 stands in, never emitted).
   */
  sample(logits: Float32Array): SampledToken {
    const usable = logits.length > this.spec.vocabLimit ? logits.subarray(0, this.spec.vocabLimit) : logits;
    // Greedy without penalties, the common case: one pass over the vocabulary instead of two.
    if (this.spec.temperature <= 0 && !this.history) return this.greedy(usable);
    const brokenScores = brokenScoresOf(usable);
    if (brokenScores !== null) return { tokenId: 0, rngState: this.random.state, brokenScores };
    const penalized = this.history ? applyPenalties(usable, this.spec, this.history) : usable;
    const tokenId = sampleToken(penalized, this.spec, () => this.random.next());
    this.history?.push(tokenId);
    markStep('sampled');
    return { tokenId, rngState: this.random.state };
  }

  /** Greedy's pick (no draw: the RNG state goes back unchanged), or why the scores are broken. */
  private greedy(usable: Float32Array): SampledToken {
    const picked = greedyOrBroken(usable);
    markStep('sampled');
    if ('brokenScores' in picked)
      return { tokenId: 0, rngState: this.random.state, brokenScores: picked.brokenScores };
    return { tokenId: picked.tokenId, rngState: this.random.state };
  }
}
