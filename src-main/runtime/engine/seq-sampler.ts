import { SeededRandom, brokenScoresOf, sampleToken } from '../sampling';
import type { SamplerSpec } from '../sampling/sampler';
import type { SampledToken } from './protocol';

/**
 * A sequence's sampler inside its slot's worker: its settings and its RNG, whose state goes
 * back to the main thread with every token (so a preempted sequence resumes the same draws).
 */
export class SeqSampler {
  private readonly random: SeededRandom;

  constructor(private readonly spec: SamplerSpec) {
    this.random = new SeededRandom(spec.rngState);
  }

  /**
   * Picks the next token from last-position logits (a padded vocabulary's tail excluded); when
   * they are NaN or infinite, says so instead (token 0 stands in, never emitted).
   */
  sample(logits: Float32Array): SampledToken {
    const usable = logits.length > this.spec.vocabLimit ? logits.subarray(0, this.spec.vocabLimit) : logits;
    const brokenScores = brokenScoresOf(usable);
    if (brokenScores !== null) return { tokenId: 0, rngState: this.random.state, brokenScores };
    const tokenId = sampleToken(usable, this.spec, () => this.random.next());
    return { tokenId, rngState: this.random.state };
  }
}
