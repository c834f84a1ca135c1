// ggml's block formats for a row-major float32 matrix, after ggml's reference quantizers
// (quantize_row_q8_0_ref, quantize_row_q4_0_ref): blocks of 32 consecutive values of a row,
// each with an fp16 scale. f16 is plain IEEE half; f32 the values as they are.

import { float32BitsToHalfBits, float32ToHalfInto } from '../../src-main/runtime/model/float16';
import type { GgmlTypeName } from './gguf-file';

/** Values per quantization block (QK8_0 = QK4_0 = 32). */
export const BLOCK_SIZE = 32;

/** Bytes per block: fp16 scale + 32 int8 (q8_0) or 16 bytes of nibbles (q4_0). */
const BLOCK_BYTES = { q8_0: 34, q4_0: 18 } as const;

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

function halfBitsOf(value: number): number {
  scratch[0] = value;
  return float32BitsToHalfBits(scratchBits[0]!);
}

/** C's roundf: halves away from zero. */
const roundAway = (value: number): number => Math.sign(value) * Math.round(Math.abs(value));

function quantizeBlockQ8(values: Float32Array, from: number, out: DataView, at: number): void {
  let amax = 0;
  for (let j = 0; j < BLOCK_SIZE; j++) amax = Math.max(amax, Math.abs(values[from + j]!));
  const d = Math.fround(amax / 127);
  const id = d ? Math.fround(1 / d) : 0;
  out.setUint16(at, halfBitsOf(d), true);
  for (let j = 0; j < BLOCK_SIZE; j++)
    out.setInt8(at + 2 + j, roundAway(Math.fround(values[from + j]! * id)));
}

function quantizeBlockQ4(values: Float32Array, from: number, out: DataView, at: number): void {
  let amax = 0;
  let max = 0;
  for (let j = 0; j < BLOCK_SIZE; j++) {
    const v = values[from + j]!;
    if (amax < Math.abs(v)) {
      amax = Math.abs(v);
      max = v;
    }
  }
  const d = Math.fround(max / -8);
  const id = d ? Math.fround(1 / d) : 0;
  out.setUint16(at, halfBitsOf(d), true);
  const half = BLOCK_SIZE / 2;
  for (let j = 0; j < half; j++) {
    const low = Math.min(15, Math.trunc(Math.fround(values[from + j]! * id) + 8.5));
    const high = Math.min(15, Math.trunc(Math.fround(values[from + half + j]! * id) + 8.5));
    out.setUint8(at + 2 + j, low | (high << 4));
  }
}

/** Bytes a tensor of `numValues` values takes in `type`. */
export function typeBytes(type: GgmlTypeName, numValues: number): number {
  if (type === 'f32') return numValues * 4;
  if (type === 'f16') return numValues * 2;
  return (numValues / BLOCK_SIZE) * BLOCK_BYTES[type];
}

/**
 * Encodes `values` (row-major, rows of `rowLength`) in `type`. Quantized types need rows that
 * are a whole number of blocks, as ggml does.
 */
export function encodeTensor(values: Float32Array, rowLength: number, type: GgmlTypeName): Uint8Array {
  if (type === 'f32') return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  if (type === 'f16') {
    const bits = new Uint16Array(values.length);
    float32ToHalfInto(values, bits);
    return new Uint8Array(bits.buffer);
  }
  if (rowLength % BLOCK_SIZE !== 0)
    throw new Error(`${type}: rows of ${rowLength} values are not a multiple of ${BLOCK_SIZE}`);
  const out = new Uint8Array(typeBytes(type, values.length));
  const view = new DataView(out.buffer);
  const quantizeBlock = type === 'q8_0' ? quantizeBlockQ8 : quantizeBlockQ4;
  for (let block = 0; block * BLOCK_SIZE < values.length; block++)
    quantizeBlock(values, block * BLOCK_SIZE, view, block * BLOCK_BYTES[type]);
  return out;
}
