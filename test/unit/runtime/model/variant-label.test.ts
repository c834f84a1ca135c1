import { describe, expect, it } from 'vitest';
import { variantLabelOf } from '../../../../src-main/runtime/model/variant-names';

describe('what every screen calls a variant', () => {
  it('names a float-named variant by the weights its graph holds', () => {
    // `model.onnx` is named "fp32" by the file convention; the bundled one holds fp16 weights.
    expect(variantLabelOf('fp32', 'fp16')).toBe('fp16');
    expect(variantLabelOf('fp16', 'int4 + fp16')).toBe('int4 + fp16');
  });

  it('keeps the name where it already says what the weights are, or nothing is known', () => {
    expect(variantLabelOf('fp32', 'fp32')).toBe('fp32');
    expect(variantLabelOf('q4', 'int4 + fp32')).toBe('q4');
    expect(variantLabelOf('q8', null)).toBe('q8');
    expect(variantLabelOf('gguf', 'int8 + int4')).toBe('gguf');
    expect(variantLabelOf(null, 'fp16')).toBeNull();
  });
});
