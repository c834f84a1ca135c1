import { describe, expect, it } from 'vitest';
import { rotaryCaches, scaledInverseFrequencies } from '../../../../../src-main/runtime/model/fused-graph';
import type { DecoderDims } from '../../../../../src-main/runtime/model/fused-graph';

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

describe('rotary caches', () => {
  it('hold cos and sin of position × inverse frequency, [context length, head dim / 2]', () => {
    const { cos, sin } = rotaryCaches(DIMS);
    const inverse = scaledInverseFrequencies(DIMS);
    expect(cos).toHaveLength(64 * 8);
    expect(cos[0]).toBe(1);
    expect(sin[5 * 8 + 0]).toBeCloseTo(Math.sin(5), 6);
    expect(cos[7 * 8 + 3]).toBeCloseTo(Math.cos(7 * inverse[3]!), 6);
  });

  it('scale linearly: position p at factor 2 is position p / 2 unscaled', () => {
    const plain = rotaryCaches(DIMS);
    const scaled = rotaryCaches({ ...DIMS, ropeScaling: { type: 'linear', factor: 2 } });
    for (let i = 0; i < 8; i++) expect(scaled.cos[10 * 8 + i]).toBeCloseTo(plain.cos[5 * 8 + i]!, 6);
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
