import { describe, expect, it } from 'vitest';
import { blockQuantize } from '../../../../../src-main/runtime/model/fused-graph/block-quantize';
import type { BlockWeight, FloatWeight } from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import { unpermuteRows } from '../../../../../src-main/runtime/model/gguf/rope-rows';
import { permuteForRope } from '../../../../../tools/gguf/llama-tensors';

const numHeads = 4;
const headDim = 8;
const numCols = 64;
const values = Float32Array.from({ length: numHeads * headDim * numCols }, (_, i) => Math.sin(i * 0.37));

describe('Q/K rows back from llama.cpp’s rope permutation', () => {
  it('undoes convert_hf_to_gguf’s permute exactly on float rows', () => {
    const permuted = permuteForRope({ data: values, shape: [numHeads * headDim, numCols] }, numHeads);
    const weight: FloatWeight = {
      kind: 'float',
      dtype: 'float32',
      data: permuted.data,
      shape: [numHeads * headDim, numCols],
      order: 'out-in',
    };
    const back = unpermuteRows(weight, numHeads, headDim) as FloatWeight;
    expect(back.data).toEqual(values);
    expect(weight.data).toEqual(permuted.data); // the input is left as it was
  });

  it('moves quantized rows with their scales and zero points, nothing decoded', () => {
    const blocks = (rows: Float32Array): BlockWeight => {
      const q = blockQuantize({
        rows,
        numRows: numHeads * headDim,
        numCols,
        bits: 4,
        blockSize: 16,
        scheme: 'asymmetric',
      });
      return { kind: 'blocks', bits: 4, blockSize: 16, numRows: numHeads * headDim, numCols, ...q };
    };
    const permuted = permuteForRope({ data: values, shape: [numHeads * headDim, numCols] }, numHeads).data;
    const back = unpermuteRows(blocks(permuted), numHeads, headDim) as BlockWeight;
    const expected = blocks(values);
    expect(back.data).toEqual(expected.data);
    expect(back.scales).toEqual(expected.scales);
    expect(back.zeroPoints).toEqual(expected.zeroPoints);
  });
});
