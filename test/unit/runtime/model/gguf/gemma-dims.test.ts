import { describe, expect, it } from 'vitest';
import { gemmaDimsOf } from '../../../../../src-main/runtime/model/gguf/gemma-dims';
import type { GgufMetaValue } from '../../../../../src-main/runtime/model/gguf/gguf-header';

const BASE = { numLayers: 6, hiddenSize: 2304, numHeads: 8, headDim: 256, hasRopeScaling: false };
const refuse = (problem: string): never => {
  throw new Error(problem);
};
const dimsOf = (arch: string, entries: Array<[string, GgufMetaValue]>, base = BASE) =>
  gemmaDimsOf(arch, new Map(entries), base, refuse);

describe('gemmaDimsOf', () => {
  it('is null for an architecture that is not Gemma', () => {
    expect(dimsOf('llama', [])).toBeNull();
  });

  it('gives a silent gemma2 file llama.cpp’s defaults: alternating sliding layers of 4096, caps 50 and 30, one RoPE', () => {
    expect(dimsOf('gemma2', [])).toEqual({
      attentionScale: 1 / 16,
      attentionSoftcap: 50,
      finalSoftcap: 30,
      slidingWindow: 4096,
      layerAttention: ['sliding', 'global', 'sliding', 'global', 'sliding', 'global'],
      slidingRopeTheta: null,
    });
  });

  it('reads gemma3’s window, slides five layers in six with RoPE base 10,000 and caps nothing', () => {
    const gemma = dimsOf('gemma3', [['gemma3.attention.sliding_window', 512]], { ...BASE, numLayers: 7 });
    expect(gemma?.layerAttention).toEqual([...Array(5).fill('sliding'), 'global', 'sliding']);
    expect(gemma).toMatchObject({
      slidingWindow: 512,
      slidingRopeTheta: 10_000,
      attentionSoftcap: null,
      finalSoftcap: null,
    });
  });

  it('makes every gemma3 layer global when the file names no window', () => {
    const gemma = dimsOf('gemma3', []);
    expect(gemma?.layerAttention.every((kind) => kind === 'global')).toBe(true);
    expect(gemma?.slidingRopeTheta).toBeNull();
  });

  it('reads the pattern and caps the file states (a cap of 0 is none)', () => {
    const gemma = dimsOf('gemma2', [
      ['gemma2.attention.sliding_window_pattern', 3],
      ['gemma2.attn_logit_softcapping', 0],
      ['gemma2.final_logit_softcapping', 20],
    ]);
    expect(gemma?.layerAttention).toEqual(['sliding', 'sliding', 'global', 'sliding', 'sliding', 'global']);
    expect(gemma).toMatchObject({ attentionSoftcap: null, finalSoftcap: 20 });
  });

  it('scales the 27B sizes’ query by 1/√(hidden/heads), as llama.cpp picks them by layer count', () => {
    const large = { ...BASE, numLayers: 46, hiddenSize: 4608, numHeads: 32, headDim: 128 };
    expect(dimsOf('gemma2', [], large)?.attentionScale).toBeCloseTo(1 / 12, 12);
    expect(dimsOf('gemma3', [], { ...large, numLayers: 62 })?.attentionScale).toBeCloseTo(1 / 12, 12);
    expect(dimsOf('gemma3', [], { ...large, numLayers: 60 })?.attentionScale).toBeCloseTo(
      1 / Math.sqrt(128),
      12,
    );
  });

  it('reads a per-layer pattern list (true slides) and refuses one of the wrong length', () => {
    const pattern = [true, false, false, true, true, false];
    const gemma = dimsOf('gemma3', [
      ['gemma3.attention.sliding_window', 512],
      ['gemma3.attention.sliding_window_pattern', pattern],
    ]);
    expect(gemma?.layerAttention).toEqual(pattern.map((slides) => (slides ? 'sliding' : 'global')));
    expect(() => dimsOf('gemma2', [['gemma2.attention.sliding_window_pattern', [true, false]]])).toThrow(
      /not one boolean per layer/,
    );
  });
});
