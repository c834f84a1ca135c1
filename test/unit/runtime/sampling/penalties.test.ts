import { describe, expect, it } from 'vitest';
import { SAMPLING_LIMITS } from '../../../../src-main/runtime/sampling/limits';
import { applyPenalties } from '../../../../src-main/runtime/sampling/penalties';
import { seededRandom } from '../../../../src-main/runtime/sampling/rng';
import {
  argmax,
  DEFAULT_SAMPLING,
  maskBelowMinP,
  sampleToken,
} from '../../../../src-main/runtime/sampling/sampler';
import { TokenHistory } from '../../../../src-main/runtime/sampling/token-history';
import { SeqSampler } from '../../../../src-main/runtime/slot-worker/seq-sampler';

const NEUTRAL = {
  repeatPenalty: DEFAULT_SAMPLING.repeatPenalty,
  presencePenalty: DEFAULT_SAMPLING.presencePenalty,
  frequencyPenalty: DEFAULT_SAMPLING.frequencyPenalty,
};

const historyOf = (promptTailIds: number[], outputIds: number[]) =>
  new TokenHistory({ promptTailIds, outputIds });

describe('penalties', () => {
  // Token 0 is the favourite; 1 a close second; 2 negative.
  const logits = Float32Array.from([2, 1.9, -1, 0.5]);

  it('change nothing at their neutral values (the same array, the greedy pick unchanged)', () => {
    const penalized = applyPenalties(logits, NEUTRAL, historyOf([0, 0, 2], [0, 0]));
    expect(penalized).toBe(logits);
    expect(argmax(penalized)).toBe(0);
  });

  it('repeat penalty divides a recent positive logit and multiplies a recent negative one', () => {
    const penalized = applyPenalties(logits, { ...NEUTRAL, repeatPenalty: 2 }, historyOf([0, 2], []));
    expect(Array.from(penalized)).toEqual([1, 1.899999976158142, -2, 0.5]);
    expect(argmax(penalized)).toBe(1);
    expect(Array.from(logits)).toEqual(Array.from(Float32Array.from([2, 1.9, -1, 0.5])));
  });

  it(`repeat penalty looks back only on the last ${SAMPLING_LIMITS.repeatPenalty.numLastTokens} tokens of prompt + answer`, () => {
    const window = SAMPLING_LIMITS.repeatPenalty.numLastTokens;
    const fillers = Array.from({ length: window }, () => 3);
    const outOfWindow = historyOf([0, ...fillers], []);
    expect(argmax(applyPenalties(logits, { ...NEUTRAL, repeatPenalty: 2 }, outOfWindow))).toBe(0);
    const pushedOut = historyOf([0, ...fillers.slice(1)], []);
    expect(argmax(applyPenalties(logits, { ...NEUTRAL, repeatPenalty: 2 }, pushedOut))).toBe(1);
    pushedOut.push(3);
    expect(argmax(applyPenalties(logits, { ...NEUTRAL, repeatPenalty: 2 }, pushedOut))).toBe(0);
  });

  it('presence penalty subtracts once from each token the answer holds, not the prompt', () => {
    const params = { ...NEUTRAL, presencePenalty: 0.5 };
    const penalized = applyPenalties(logits, params, historyOf([1], [0, 0, 0]));
    expect(penalized[0]).toBeCloseTo(1.5);
    expect(penalized[1]).toBeCloseTo(1.9);
    expect(argmax(penalized)).toBe(1);
  });

  it('frequency penalty subtracts its value per occurrence in the answer', () => {
    const params = { ...NEUTRAL, frequencyPenalty: 0.04 };
    expect(argmax(applyPenalties(logits, params, historyOf([], [0, 0])))).toBe(0); // 2 − 0.08 > 1.9
    const thrice = applyPenalties(logits, params, historyOf([], [0, 0, 0]));
    expect(thrice[0]).toBeCloseTo(1.88);
    expect(argmax(thrice)).toBe(1);
  });

  it('a sequence sampler counts the tokens it picks itself', () => {
    const sampler = new SeqSampler({
      ...DEFAULT_SAMPLING,
      frequencyPenalty: 0.06,
      vocabLimit: 4,
      rngState: 1,
      history: { promptTailIds: [], outputIds: [] },
    });
    // 2.0, 1.94, 1.88 (< 1.9): the third pick moves to token 1.
    const picks = [0, 1, 2].map(() => sampler.sample(Float32Array.from(logits)).tokenId);
    expect(picks).toEqual([0, 0, 1]);
  });
});

describe('min-p', () => {
  // Probabilities ∝ e^logit: token 1 is 1/e (0.37) as likely as token 0, token 2 1/e² (0.14).
  const logits = Float32Array.from([0, -1, -2, Number.NEGATIVE_INFINITY]);
  const drawSet = (minP: number) => {
    const random = seededRandom(9);
    const params = { temperature: 1, topK: 0, topP: 1, minP };
    return new Set(Array.from({ length: 300 }, () => sampleToken(logits, params, random)));
  };

  it('keeps only tokens at least min_p times as likely as the likeliest', () => {
    expect([...drawSet(0.3)].sort()).toEqual([0, 1]);
    expect([...drawSet(0.5)]).toEqual([0]);
    expect(Array.from(maskBelowMinP(logits, 0.3))).toEqual([0, -1, -Infinity, -Infinity]);
  });

  it('changes nothing at 0: the same draws as without it', () => {
    const random = seededRandom(4);
    const reference = seededRandom(4);
    for (let i = 0; i < 100; i++)
      expect(sampleToken(logits, { temperature: 1, topK: 0, topP: 1, minP: 0 }, random)).toBe(
        sampleToken(logits, { temperature: 1, topK: 0, topP: 1 }, reference),
      );
    expect([...drawSet(0)].sort()).toEqual([0, 1, 2]);
  });
});
