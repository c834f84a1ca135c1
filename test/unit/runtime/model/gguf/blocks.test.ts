import { describe, expect, it } from 'vitest';
import { dequantize } from '../../../../../src-main/runtime/model/gguf/ggml-dequantize';
import { blockFidelityOf, toMatMulBlocks } from '../../../../../src-main/runtime/model/gguf/to-matmul-blocks';
import type { GgufBlockWeight } from '../../../../../src-main/runtime/model/gguf/weight-types';
import { llamaFfi, peersSkipReason } from '../../../../support/llama-peers';

const TYPES = ['Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K'];
const NUM_ROWS = 6;
const NUM_COLS = 512;

/** Weights with the spread of a real layer: mixed signs, some blocks all positive, an outlier. */
const VALUES = new Float32Array(NUM_ROWS * NUM_COLS).map((_, i) => {
  const onePositiveBlock = Math.floor(i / 32) % 7 === 3;
  const value = Math.sin(i * 0.37) * (1 + (i % 97) / 50) + (i % 13 === 0 ? 0.5 : 0);
  return onePositiveBlock ? Math.abs(value) + 0.2 : i === 77 ? 6 : value;
});

/** The value MatMulNBits computes for each element of a block weight: (code − zero point) × scale. */
function valuesOf(weight: GgufBlockWeight): Float32Array {
  const out = new Float32Array(weight.numRows * weight.numCols);
  const numBlocks = weight.numCols / weight.blockSize;
  for (let row = 0; row < weight.numRows; row++)
    for (let col = 0; col < weight.numCols; col++) {
      const block = row * numBlocks + Math.floor(col / weight.blockSize);
      const j = col % weight.blockSize;
      const byte =
        weight.data[(block * weight.blockSize * weight.bits) / 8 + (weight.bits === 4 ? j >> 1 : j)]!;
      const code = weight.bits === 8 ? byte : j & 1 ? byte >> 4 : byte & 15;
      const zeroPoint = weight.zeroPoints ? weight.zeroPoints[block]! : 2 ** (weight.bits - 1);
      out[row * weight.numCols + col] = (code - zeroPoint) * weight.scales[block]!;
    }
  return out;
}

describe.skipIf(peersSkipReason !== null)('ggml blocks against llama.cpp', () => {
  const ffi = llamaFfi!;

  it.each(TYPES)('%s decodes to exactly the values llama.cpp dequantizes', (type) => {
    const bytes = ffi.quantize(type, VALUES, NUM_ROWS, NUM_COLS);
    expect(dequantize(type, bytes, VALUES.length)).toEqual(ffi.dequantize(type, bytes, VALUES.length));
  });

  it.each(TYPES)(
    '%s maps to MatMulNBits blocks: exact for symmetric types, offsets within 1/(2k) step otherwise',
    (type) => {
      const bytes = ffi.quantize(type, VALUES, NUM_ROWS, NUM_COLS);
      const truth = ffi.dequantize(type, bytes, VALUES.length);
      const weight = toMatMulBlocks(type, bytes, NUM_ROWS, NUM_COLS);
      const mapped = valuesOf(weight);
      const fidelity = blockFidelityOf(type);
      if (fidelity === 'exact') {
        expect(mapped).toEqual(truth);
        return;
      }
      // Per block: the error is one constant offset (rounded zero point) or, re-quantized, half an 8-bit step.
      const numBlocks = VALUES.length / weight.blockSize;
      for (let block = 0; block < numBlocks; block++) {
        const step = Math.abs(weight.scales[block]!);
        for (let j = 0; j < weight.blockSize; j++) {
          const at = block * weight.blockSize + j;
          expect(Math.abs(mapped[at]! - truth[at]!)).toBeLessThanOrEqual(step / 2 + 1e-6);
        }
      }
    },
  );
});

describe('ggml block fidelity', () => {
  it('says which types map exactly, which round block offsets and which are re-quantized', () => {
    expect(['Q4_0', 'Q8_0', 'Q5_0', 'Q3_K', 'Q6_K'].map(blockFidelityOf)).toEqual(Array(5).fill('exact'));
    expect(['Q4_1', 'Q4_K', 'Q2_K'].map(blockFidelityOf)).toEqual(Array(3).fill('offset-rounded'));
    expect(['Q5_1', 'Q5_K'].map(blockFidelityOf)).toEqual(['requantized', 'requantized']);
    expect(blockFidelityOf('IQ2_XXS')).toBeNull();
  });
});
