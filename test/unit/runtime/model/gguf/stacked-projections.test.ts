import { describe, expect, it } from 'vitest';
import { dequantize } from '../../../../../src-main/runtime/model/gguf/ggml-dequantize';
import { ggmlBytesOf, ggmlTypeOf } from '../../../../../src-main/runtime/model/gguf/ggml-types';
import type { GgufSetTensor } from '../../../../../src-main/runtime/model/gguf/gguf-files';
import { splitRows } from '../../../../../src-main/runtime/model/gguf/stacked-projections';

const Q4_K = ggmlTypeOf(12)!;
const numCols = 512;
const numRows = 6;

/** Q4_K bytes of a [numRows, numCols] matrix: random codes and scales, each block's d and dmin 1.0. */
function q4kMatrix(): GgufSetTensor {
  return {
    name: 'blk.0.attn_qkv.weight',
    dims: [numCols, numRows],
    type: Q4_K,
    offset: 0,
    numBytes: ggmlBytesOf(Q4_K, numRows * numCols),
    file: 'model.gguf',
  };
}

describe('stacked projections cut by rows', () => {
  it('cuts a K-quant tensor into parts whose values are its rows, nothing decoded', () => {
    const tensor = q4kMatrix();
    const bytes = Uint8Array.from({ length: tensor.numBytes }, (_, i) => (i * 2654435761) >>> 24);
    for (let block = 0; block < tensor.numBytes / 144; block++) bytes.set([0, 0x3c, 0, 0x3c], block * 144);
    const whole = dequantize('Q4_K', bytes, numRows * numCols);
    const parts = splitRows({ tensor, bytes }, [
      ['q', 2],
      ['k', 3],
      ['v', 1],
    ]);
    expect(parts.map((p) => [p.tensor.name, p.tensor.dims])).toEqual([
      ['blk.0.attn_qkv.weight[q]', [numCols, 2]],
      ['blk.0.attn_qkv.weight[k]', [numCols, 3]],
      ['blk.0.attn_qkv.weight[v]', [numCols, 1]],
    ]);
    let row = 0;
    for (const part of parts) {
      const count = part.tensor.dims[1]!;
      expect(part.bytes.buffer).toBe(bytes.buffer); // a view, not a copy
      expect(dequantize('Q4_K', part.bytes, count * numCols)).toEqual(
        whole.subarray(row * numCols, (row + count) * numCols),
      );
      row += count;
    }
  });

  it('refuses parts that do not add up to the tensor’s rows', () => {
    const tensor = q4kMatrix();
    expect(() => splitRows({ tensor, bytes: new Uint8Array(tensor.numBytes) }, [['gate', 4]])).toThrow(
      /has 6 rows; its parts add up to 4/,
    );
  });
});
