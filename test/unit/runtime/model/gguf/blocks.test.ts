import { describe, expect, it } from 'vitest';
import { dequantize } from '../../../../../src-main/runtime/model/gguf/ggml-dequantize';
import { blockLayoutOf, toMatMulBlocks } from '../../../../../src-main/runtime/model/gguf/to-matmul-blocks';
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

/**
 * The value the graph computes for each element of a block weight: (code − zero point) × scale
 * from MatMulNBits, plus the block's offset (block-offsets.ts).
 */
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
      const value = (code - zeroPoint) * weight.scales[block]!;
      out[row * weight.numCols + col] = weight.offsets ? value + weight.offsets[block]! : value;
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
    '%s maps to MatMulNBits blocks at its own width, every value as llama.cpp decodes it',
    (type) => {
      const bytes = ffi.quantize(type, VALUES, NUM_ROWS, NUM_COLS);
      const truth = ffi.dequantize(type, bytes, VALUES.length);
      const weight = toMatMulBlocks(type, bytes, NUM_ROWS, NUM_COLS);
      expect(weight.bits).toBe(blockLayoutOf(type)!.bits);
      expect(weight.zeroPoints).toBeNull();
      const mapped = valuesOf(weight);
      if (!weight.offsets) {
        expect(mapped).toEqual(truth);
        return;
      }
      // Affine: the float32 offset (middle × scale − min) rounds once; ggml's own float32 sum too.
      for (let at = 0; at < VALUES.length; at++) {
        const block = Math.floor(at / weight.blockSize);
        const size = Math.abs(weight.scales[block]!) * 32 + Math.abs(weight.offsets[block]!);
        expect(Math.abs(mapped[at]! - truth[at]!)).toBeLessThanOrEqual(size * 2 ** -22);
      }
    },
  );
});

describe('ggml block layouts', () => {
  it('keeps 4-bit types at 4 bits, 5-bit affine types at 8, gives affine types offsets, and groups scales per ggml block', () => {
    const layouts = Object.fromEntries(TYPES.map((type) => [type, blockLayoutOf(type)]));
    expect(layouts).toEqual({
      Q4_0: { bits: 4, blockSize: 32, hasOffsets: false, groupSize: 1 },
      Q4_1: { bits: 4, blockSize: 32, hasOffsets: true, groupSize: 1 },
      Q5_0: { bits: 8, blockSize: 32, hasOffsets: false, groupSize: 1 },
      Q5_1: { bits: 8, blockSize: 32, hasOffsets: true, groupSize: 1 },
      Q8_0: { bits: 8, blockSize: 32, hasOffsets: false, groupSize: 1 },
      Q2_K: { bits: 4, blockSize: 16, hasOffsets: true, groupSize: 16 },
      Q3_K: { bits: 4, blockSize: 16, hasOffsets: false, groupSize: 16 },
      Q4_K: { bits: 4, blockSize: 32, hasOffsets: true, groupSize: 8 },
      Q5_K: { bits: 8, blockSize: 32, hasOffsets: true, groupSize: 8 },
      Q6_K: { bits: 8, blockSize: 16, hasOffsets: false, groupSize: 16 },
    });
    expect(blockLayoutOf('IQ2_XXS')).toBeNull();
  });
});
