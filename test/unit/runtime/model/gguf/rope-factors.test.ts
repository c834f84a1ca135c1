import { describe, expect, it } from 'vitest';
import { ggmlTypeOf } from '../../../../../src-main/runtime/model/gguf/ggml-types';
import type { GgufSetTensor } from '../../../../../src-main/runtime/model/gguf/gguf-files';
import { ropeFactorsTensorOf } from '../../../../../src-main/runtime/model/gguf/gguf-architecture';

describe('LongRoPE factors as llama.cpp picks them', () => {
  const factor = (name: string): [string, GgufSetTensor] => [
    name,
    { name, dims: [64], type: ggmlTypeOf(0)!, offset: 0, numBytes: 256, file: 'model.gguf' },
  ];
  const tensors = new Map([factor('rope_factors_long.weight'), factor('rope_factors_short.weight')]);
  const meta = new Map([['phi3.rope.scaling.original_context_length', 4096]]);

  it('takes the long factors only for a context past the original one', () => {
    expect(ropeFactorsTensorOf('phi3', meta, tensors, 131072)).toBe('rope_factors_long.weight');
    expect(ropeFactorsTensorOf('phi3', meta, tensors, 4096)).toBe('rope_factors_short.weight');
    expect(ropeFactorsTensorOf('phi3', new Map(), tensors, 131072)).toBe('rope_factors_short.weight');
  });

  it('prefers rope_freqs and gives none when the file has no factors', () => {
    expect(ropeFactorsTensorOf('phi3', meta, new Map([...tensors, factor('rope_freqs.weight')]), 8192)).toBe(
      'rope_freqs.weight',
    );
    expect(ropeFactorsTensorOf('phi3', meta, new Map(), 131072)).toBeNull();
  });
});
