import { describe, expect, it } from 'vitest';
import { findEntry } from '../../../../src-main/runtime/model/catalogue';
import type { CatalogueEntry } from '../../../../src-main/runtime/model/catalogue';
import {
  fileRefOf,
  idVariantOf,
  isRefTo,
  variantLabelOf,
} from '../../../../src-main/runtime/model/variant-names';

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

describe('a model id names the variant by its weights, its old id still reaching it', () => {
  const FP16_MODEL_ONNX = { modelId: 'm:fp16', name: 'm', variant: 'fp32', isDefaultVariant: true };

  it('names model.onnx by its fp16 weights unless a model_fp16.onnx already takes the name', () => {
    expect(idVariantOf('fp32', 'fp16', ['fp32', 'q4'])).toBe('fp16');
    expect(idVariantOf('fp32', 'fp16', ['fp32', 'fp16'])).toBe('fp32');
  });

  it('keeps the file’s variant where the weights are no variant name or nothing is known', () => {
    expect(idVariantOf('fp16', 'int4 + fp16', ['fp16'])).toBe('fp16');
    expect(idVariantOf('fp32', 'fp32', ['fp32'])).toBe('fp32');
    expect(idVariantOf('q4', 'int4 + fp32', ['q4'])).toBe('q4');
    expect(idVariantOf('fp32', null, ['fp32'])).toBe('fp32');
  });

  it('reaches a variant by its id, its file’s old id, or its bare name as the default', () => {
    expect(fileRefOf(FP16_MODEL_ONNX)).toBe('m:fp32');
    for (const ref of ['m:fp16', 'm:fp32', 'm']) expect(isRefTo(FP16_MODEL_ONNX, ref)).toBe(true);
    expect(isRefTo(FP16_MODEL_ONNX, 'm:q4')).toBe(false);
    expect(isRefTo({ ...FP16_MODEL_ONNX, isDefaultVariant: false }, 'm')).toBe(false);
  });

  it('finds the catalogue entry an old id names', () => {
    const entries = [
      { ...FP16_MODEL_ONNX, status: 'ok' },
      { modelId: 'm:q4', name: 'm', variant: 'q4', isDefaultVariant: false, status: 'ok' },
    ] as unknown as CatalogueEntry[];
    expect(findEntry(entries, 'm:fp32')?.modelId).toBe('m:fp16');
    expect(findEntry(entries, 'm:fp16')?.modelId).toBe('m:fp16');
    expect(findEntry(entries, 'm:q4')?.modelId).toBe('m:q4');
  });
});
