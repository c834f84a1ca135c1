import type { EffectiveSampling } from '../../../src-main/service/contract/chat-schemas';
import type { Sampling } from '../../../src-main/service/contract/schemas';

/**
 * What Regenerate will do with these sampling settings, in words: a new draw (temperature above
 * 0 and no fixed seed), or the same answer again (greedy, or a fixed seed), and how to change it.
 */
export function regenerateNote(sampling: Sampling, effective: EffectiveSampling | undefined): string {
  const temperature = sampling.temperature ?? effective?.temperature ?? 0;
  if (temperature <= 0)
    return 'Regenerate gives the same answer: temperature 0 always picks the likeliest word. Raise the temperature for a different answer.';
  if (sampling.seed !== undefined)
    return `Regenerate gives the same answer: the seed is fixed at ${sampling.seed}. Clear the seed for a different answer.`;
  return `Regenerate writes a different answer: each send draws at random (temperature ${temperature}). The Deterministic preset gives the same answer every time.`;
}
