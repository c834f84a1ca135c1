import { describe, expect, it } from 'vitest';
import {
  brokenScoresOf,
  describeBrokenScores,
  greedyOrBroken,
} from '../../../../src-main/runtime/sampling/broken-scores';
import { DEFAULT_SAMPLING, argmax } from '../../../../src-main/runtime/sampling/sampler';
import { SeqSampler } from '../../../../src-main/runtime/slot-worker/seq-sampler';

const scores = (...values: number[]) => Float32Array.from(values);

describe('broken scores', () => {
  it('are NaN anywhere, +∞ anywhere, or no finite score; −∞ alone is a mask', () => {
    expect(brokenScoresOf(scores(0.5, NaN, 1))).toBe('nan');
    expect(brokenScoresOf(scores(0.5, Infinity, 1))).toBe('infinite');
    expect(brokenScoresOf(scores(-Infinity, -Infinity))).toBe('infinite');
    expect(brokenScoresOf(scores(-Infinity, 2, -Infinity))).toBeNull();
  });

  it('are said by the sampler instead of picking token 0, greedy or sampled, in plain words', () => {
    for (const temperature of [0, 0.8]) {
      const sampler = new SeqSampler({
        ...DEFAULT_SAMPLING,
        temperature,
        topK: 0,
        topP: 1,
        vocabLimit: 3,
        rngState: 7,
        history: { promptTailIds: [], outputIds: [] },
      });
      expect(sampler.sample(scores(NaN, NaN, NaN))).toMatchObject({ brokenScores: 'nan' });
      // The padded vocabulary's tail is never read: NaN there is not the model's answer.
      expect(sampler.sample(scores(0, 3, 1, NaN)).brokenScores).toBeUndefined();
    }
    expect(describeBrokenScores('nan')).toBe('the model produced NaN scores: its weights are broken');
  });

  it('are found by greedy’s one-pass pick exactly as the check then argmax find them, ties to the lowest id', () => {
    const cases = [
      scores(0.5, NaN, 1),
      scores(0.5, Infinity, 1),
      scores(-Infinity, -Infinity),
      scores(-Infinity, 2, -Infinity),
      scores(3, 1, 3, 2),
      scores(-1, -2, -0.5, -0.5),
      Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i * 7.3)),
    ];
    for (const logits of cases) {
      const broken = brokenScoresOf(logits);
      expect(greedyOrBroken(logits)).toEqual(broken ? { brokenScores: broken } : { tokenId: argmax(logits) });
    }
  });
});
