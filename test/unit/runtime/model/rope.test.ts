import { describe, expect, it } from 'vitest';
import { scaledInverseFrequencies } from '../../../../src-main/runtime/model/rope';
import type { DecoderDims } from '../../../../src-main/runtime/model/fused-graph/weight-set';

const DIMS: DecoderDims = {
  numLayers: 1,
  hiddenSize: 64,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 16,
  intermediateSize: 128,
  vocabSize: 10,
  ropeTheta: 500000,
  ropeScaling: null,
  rmsNormEps: 1e-5,
  isTiedEmbedding: true,
  contextLength: 64,
};

describe('RoPE inverse frequencies', () => {
  it('are 1 / theta^(2i / head dim), head dim / 2 of them', () => {
    const inverse = scaledInverseFrequencies(DIMS);
    expect(inverse).toHaveLength(8);
    expect(inverse[0]).toBe(1);
    expect(inverse[3]).toBeCloseTo(1 / 500000 ** (6 / 16), 9);
  });

  it('scale linearly: every frequency divided by the factor (position p at factor 2 is p / 2)', () => {
    const plain = scaledInverseFrequencies(DIMS);
    const scaled = scaledInverseFrequencies({ ...DIMS, ropeScaling: { type: 'linear', factor: 2 } });
    for (let i = 0; i < 8; i++) expect(scaled[i]).toBeCloseTo(plain[i]! / 2, 9);
  });

  it('scale as llama3 does: short wavelengths kept, long ones divided by the factor', () => {
    const plain = scaledInverseFrequencies(DIMS);
    const scaled = scaledInverseFrequencies({
      ...DIMS,
      ropeScaling: {
        type: 'llama3',
        factor: 8,
        lowFreqFactor: 1,
        highFreqFactor: 4,
        originalContextLength: 8192,
      },
    });
    expect(scaled[0]).toBe(plain[0]);
    expect(scaled[7]).toBeCloseTo(plain[7]! / 8, 12);
  });

  it('divide each frequency by its GGUF rope_freqs factor', () => {
    const factors = Float32Array.from({ length: 8 }, (_, i) => 1 + i);
    const scaled = scaledInverseFrequencies({ ...DIMS, ropeScaling: { type: 'frequency-factors', factors } });
    const plain = scaledInverseFrequencies(DIMS);
    expect(scaled[3]).toBeCloseTo(plain[3]! / 4, 12);
  });
});
