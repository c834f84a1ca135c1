// ggml's block formats decoded to floats, after ggml-quants.c's dequantize_row_* (checked value
// for value against llama.cpp's own library in the tests). Used where a tensor cannot keep its
// blocks: norms, vectors, an embedding whose blocks the Gather cannot read. Blocks unpack through
// the type table's unpacker (ggml-block-unpack.ts), the same one the MatMulNBits mapping uses.

import { halfToFloat } from '../float16';
import { codeZeroOf } from './ggml-block-unpack';
import { ggmlTypeNamed } from './ggml-types';

/** Decodes `numValues` values of ggml type `typeName` from `bytes` (a whole number of blocks). */
export function dequantize(typeName: string, bytes: Uint8Array, numValues: number): Float32Array {
  const out = new Float32Array(numValues);
  if (typeName === 'F32') {
    out.set(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + numValues * 4)));
    return out;
  }
  if (typeName === 'F16' || typeName === 'BF16') {
    for (let i = 0; i < numValues; i++) {
      const bits = bytes[2 * i]! | (bytes[2 * i + 1]! << 8);
      out[i] = typeName === 'F16' ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    return out;
  }
  const type = ggmlTypeNamed(typeName);
  const unpack = type?.unpack;
  if (!type || !unpack) throw new Error(`ggml type ${typeName} cannot be decoded here`);
  const { subBlock } = unpack;
  const codes = new Uint8Array(type.blockValues);
  const scales = new Float32Array(type.blockValues / subBlock);
  // Symmetric types never write mins: they stay 0, and value = scale × (code − zero) − 0.
  const mins = new Float32Array(scales.length);
  const zero = codeZeroOf(unpack);
  for (let block = 0; block * type.blockValues < numValues; block++) {
    unpack.unpack(bytes, block * type.blockBytes, codes, scales, mins);
    const to = block * type.blockValues;
    for (let s = 0; s < scales.length; s++) {
      const scale = scales[s]!;
      const min = mins[s]!;
      for (let j = s * subBlock; j < (s + 1) * subBlock; j++) out[to + j] = scale * (codes[j]! - zero) - min;
    }
  }
  return out;
}

const bf16View = new Float32Array(1);
const bf16Bits = new Uint32Array(bf16View.buffer);
function bf16ToFloat(bits: number): number {
  bf16Bits[0] = bits << 16;
  return bf16View[0]!;
}
