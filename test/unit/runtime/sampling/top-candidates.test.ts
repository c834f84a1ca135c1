import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../src-main/runtime/sampling/rng';
import { sampleToken } from '../../../../src-main/runtime/sampling/sampler';
import type { SamplingParams } from '../../../../src-main/runtime/sampling/sampler';
import { TopCandidates } from '../../../../src-main/runtime/sampling/top-candidates';

/** Logits behind a proxy that counts every element read: work measured as reads, not time. */
function countingLogits(values: Float32Array): { logits: Float32Array; numReads: () => number } {
  let numReads = 0;
  const proxy = new Proxy(values, {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) numReads++;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { logits: proxy, numReads: () => numReads };
}

/** The reference: every finite logit fully sorted (larger first, ties to the lower id), cut to k. */
function fullSortTop(logits: Float32Array, k: number): number[] {
  const finite = [...logits.keys()].filter((i) => Number.isFinite(logits[i]!));
  return finite.sort((a, b) => logits[b]! - logits[a]! || a - b).slice(0, k > 0 ? k : finite.length);
}

/** The reference sampler over the full sort: softmax, nucleus, then one draw walked in order. */
function fullSortSample(
  logits: Float32Array,
  params: Pick<SamplingParams, 'temperature' | 'topK' | 'topP'>,
  random: () => number,
): number {
  const top = fullSortTop(logits, params.topK);
  const weights = top.map((id) => Math.exp((logits[id]! - logits[top[0]!]!) / params.temperature));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const probs = weights.map((w) => w / total);
  let numKept = probs.length;
  let mass = 0;
  for (let i = 0; i < probs.length && params.topP < 1; i++) {
    mass += probs[i]!;
    if (mass >= params.topP) {
      numKept = i + 1;
      break;
    }
  }
  let pick = random() * probs.slice(0, numKept).reduce((sum, p) => sum + p, 0);
  for (let i = 0; i < numKept; i++) if ((pick -= probs[i]!) <= 0) return top[i]!;
  return top[numKept - 1]!;
}

/** Logits with ties (values on a coarse grid) and masked entries, from a seed. */
function tiedLogits(numVocab: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  return Float32Array.from({ length: numVocab }, () => {
    const draw = random();
    if (draw < 0.05) return Number.NEGATIVE_INFINITY;
    if (draw < 0.07) return Number.NaN;
    return Math.round(random() * 40) / 4;
  });
}

describe('TopCandidates', () => {
  it.each([1, 2, 7, 100, 999, 1_000, 5_000])('gives exactly the full sort cut to k=%i, in order', (k) => {
    for (const seed of [1, 2, 3]) {
      const logits = tiedLogits(1_000, seed);
      const candidates = TopCandidates.of(logits, k);
      const taken = Array.from({ length: candidates.numLeft }, () => candidates.take());
      expect(taken).toEqual(fullSortTop(logits, k));
    }
  });

  it('has nothing to give when every logit is masked', () => {
    const masked = Float32Array.from([Number.NEGATIVE_INFINITY, Number.NaN]);
    expect(TopCandidates.of(masked, 1).numLeft).toBe(0);
    expect(sampleToken(masked, { temperature: 1, topK: 0, topP: 1 }, seededRandom(1))).toBe(0);
  });
});

describe('top-k sampling', () => {
  it.each([
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 0.7, topK: 40, topP: 0.95 },
    { temperature: 2, topK: 500, topP: 1 },
    { temperature: 1.3, topK: 0, topP: 0.5 },
  ])('draws what the full sort draws for the same seed (%o)', (params) => {
    const logits = tiedLogits(1_000, 9);
    const ours = seededRandom(77);
    const reference = seededRandom(77);
    for (let draw = 0; draw < 300; draw++)
      expect(sampleToken(logits, params, ours)).toBe(fullSortSample(logits, params, reference));
  });

  it('reads each logit a bounded number of times, however large k is (partial selection, not insertion)', () => {
    const numVocab = 4_000;
    // Ascending logits: every new value beats all kept ones, the worst case of an insertion.
    const { logits, numReads } = countingLogits(Float32Array.from({ length: numVocab }, (_, i) => i / 100));
    sampleToken(logits, { temperature: 1, topK: numVocab / 2, topP: 1 }, seededRandom(1));
    console.log(`top-k reads: ${numReads()} for ${numVocab} logits`);
    expect(numReads()).toBeLessThan(40 * numVocab);
  });
});
