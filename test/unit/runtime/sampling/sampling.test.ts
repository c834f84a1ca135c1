import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../src-main/runtime/sampling/rng';
import { argmax, sampleToken } from '../../../../src-main/runtime/sampling/sampler';
import { StopMatcher } from '../../../../src-main/runtime/sampling/stop-matcher';

describe('sampling', () => {
  const logits = Float32Array.from([0.1, 3, 2.9, -1, Number.NEGATIVE_INFINITY]);

  it('is greedy at temperature 0', () => {
    expect(sampleToken(logits, { temperature: 0, topK: 0, topP: 1 }, seededRandom(1))).toBe(1);
    expect(argmax(logits)).toBe(1);
  });

  it('draws by the softmax: each token as often as its probability, the seed deciding which, never a masked entry', () => {
    const params = { temperature: 1, topK: 0, topP: 1 };
    const draw = (seed: number, numDraws: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: numDraws }, () => sampleToken(logits, params, random));
    };
    expect(draw(42, 50)).toEqual(draw(42, 50));
    expect(draw(42, 50)).not.toEqual(draw(43, 50));
    const picks = draw(7, 4_000);
    const weights = [...logits].map((x) => Math.exp(x));
    const total = weights.reduce((a, b) => a + b, 0);
    for (let token = 0; token < logits.length; token++) {
      const share = picks.filter((pick) => pick === token).length / picks.length;
      // Four standard errors at the widest (p = 0.5, 4,000 draws): a fixed seed never flakes.
      expect(Math.abs(share - weights[token]! / total), `token ${token}`).toBeLessThan(0.03);
    }
    expect(picks).not.toContain(4);
  });

  it('keeps only the top-k candidates', () => {
    const random = seededRandom(3);
    const picks = new Set(
      Array.from({ length: 200 }, () => sampleToken(logits, { temperature: 2, topK: 2, topP: 1 }, random)),
    );
    expect([...picks].sort()).toEqual([1, 2]);
  });

  it('keeps the smallest nucleus reaching top-p', () => {
    const peaked = Float32Array.from([10, 0, 0, 0]);
    const random = seededRandom(5);
    const picks = new Set(
      Array.from({ length: 100 }, () => sampleToken(peaked, { temperature: 1, topK: 0, topP: 0.5 }, random)),
    );
    expect([...picks]).toEqual([0]);
  });
});

describe('StopMatcher', () => {
  it('holds back a possible stop string and drops it when it completes', () => {
    const matcher = new StopMatcher(['END']);
    expect(matcher.push('hello E')).toEqual({ emit: 'hello ', isStopped: false });
    expect(matcher.push('N')).toEqual({ emit: '', isStopped: false });
    expect(matcher.push('D and more')).toEqual({ emit: '', isStopped: true });
  });

  it('releases held text when the stop string does not complete', () => {
    const matcher = new StopMatcher(['END']);
    matcher.push('an E');
    expect(matcher.push('gg')).toEqual({ emit: 'Egg', isStopped: false });
    matcher.push(' E');
    expect(matcher.flush()).toBe('E');
  });
});
