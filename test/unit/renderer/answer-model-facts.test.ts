import { describe, expect, it } from 'vitest';
import { variantWords } from '../../../src-renderer/views/chat/answer-model-facts';

describe("the answer chip's variant", () => {
  it('adds the real weight storage where a float variant name claims another precision', () => {
    // `model.onnx` is named "fp32" by the file convention; the bundled one holds fp16 weights.
    expect(variantWords('fp32', 'fp16')).toBe('fp32 (fp16 weights)');
    expect(variantWords('fp16', 'int4 + fp16')).toBe('fp16 (int4 + fp16 weights)');
  });

  it('keeps the name alone where it already says what the weights are, or nothing is known', () => {
    expect(variantWords('fp32', 'fp32')).toBe('fp32');
    expect(variantWords('q4', 'int4')).toBe('q4');
    expect(variantWords('q8', null)).toBe('q8');
    expect(variantWords(null, 'fp16')).toBeNull();
  });
});
