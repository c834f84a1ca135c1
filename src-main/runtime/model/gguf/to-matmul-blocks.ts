// A GGUF matrix's blocks → MatMulNBits blocks:
// - Q4_0, Q8_0, Q5_0, Q3_K, Q6_K are symmetric (value = scale × signed code): codes shift into
//   MatMulNBits' unsigned range and its default zero point (8 at 4 bits, 128 at 8) undoes the
//   shift, so they map exactly, at their own width;
// - Q4_1, Q4_K, Q2_K are affine (value = scale × code − min). ONNX Runtime 1.30's CPU MatMulNBits
//   takes a float zero point min / scale at 4 bits and is then exact, but runs such a node through
//   its unpacked path, about 100× slower than with uint8 zero points (measured on a 2048×8192
//   projection: 200–320 ms against 0.9–4.5 ms), so they become 8-bit blocks instead: code × k with
//   k = ⌊255 / top code⌋ and a uint8 zero point round(k × min / scale), exact but for the block's
//   offset, rounded to 1/(2k) of a quantization step (1/34 for 4-bit codes);
// - Q5_1 and Q5_K (5-bit affine codes) are re-quantized from their decoded values to 8-bit affine
//   blocks of 32 (not exact: at most half an 8-bit step per value).

import { dequantize, q3kScales, scaleMinK4 } from './ggml-dequantize';
import { halfToFloat } from './half';
import type { GgufBlockWeight, MappingFidelity } from './weight-types';

/** How one ggml type maps: sub-block size, code bits, zero points, and a block decoder. */
interface BlockMapping {
  /** Values and bytes of one ggml block. */
  values: number;
  bytes: number;
  /** MatMulNBits block size (a ggml block holds values / subBlock of them). */
  subBlock: number;
  bits: 4 | 8;
  zeroPoints: 'default' | 'affine';
  /** Codes run 0…topCode (affine types only: sets the 8-bit widening factor). */
  topCode?: number;
  /** Writes the block's unsigned codes, one scale and (affine types) one min / scale per sub-block. */
  decode(b: Uint8Array, at: number, codes: Uint8Array, scales: Float32Array, zps: Float32Array): void;
}

const half = (b: Uint8Array, at: number) => halfToFloat(b[at]! | (b[at + 1]! << 8));

/** An affine sub-block `scale × code − min`: scale and zero point min/scale (all-equal blocks kept exact). */
function affine(
  scales: Float32Array,
  zps: Float32Array,
  i: number,
  scale: number,
  min: number,
  codes: Uint8Array,
  from: number,
  count: number,
): void {
  if (scale !== 0) {
    scales[i] = scale;
    zps[i] = min / scale;
    return;
  }
  // Every value is −min: code 0 with scale min and zero point 1 gives exactly that.
  codes.fill(0, from, from + count);
  scales[i] = min;
  zps[i] = 1;
}

const MAPPINGS: Record<string, BlockMapping> = {
  Q4_0: {
    values: 32,
    bytes: 18,
    subBlock: 32,
    bits: 4,
    zeroPoints: 'default',
    decode: (b, at, codes, scales) => {
      scales[0] = half(b, at);
      for (let j = 0; j < 16; j++) {
        codes[j] = b[at + 2 + j]! & 15;
        codes[j + 16] = b[at + 2 + j]! >> 4;
      }
    },
  },
  Q8_0: {
    values: 32,
    bytes: 34,
    subBlock: 32,
    bits: 8,
    zeroPoints: 'default',
    decode: (b, at, codes, scales) => {
      scales[0] = half(b, at);
      for (let j = 0; j < 32; j++) codes[j] = (b[at + 2 + j]! + 128) & 255;
    },
  },
  Q5_0: {
    values: 32,
    bytes: 22,
    subBlock: 32,
    bits: 8,
    zeroPoints: 'default',
    decode: (b, at, codes, scales) => {
      scales[0] = half(b, at);
      const qh = (b[at + 2]! | (b[at + 3]! << 8) | (b[at + 4]! << 16) | (b[at + 5]! << 24)) >>> 0;
      for (let j = 0; j < 16; j++) {
        codes[j] = ((b[at + 6 + j]! & 15) | (((qh >>> j) << 4) & 0x10)) - 16 + 128;
        codes[j + 16] = ((b[at + 6 + j]! >> 4) | ((qh >>> (j + 12)) & 0x10)) - 16 + 128;
      }
    },
  },
  Q4_1: {
    values: 32,
    bytes: 20,
    subBlock: 32,
    bits: 4,
    zeroPoints: 'affine',
    topCode: 15,
    decode: (b, at, codes, scales, zps) => {
      for (let j = 0; j < 16; j++) {
        codes[j] = b[at + 4 + j]! & 15;
        codes[j + 16] = b[at + 4 + j]! >> 4;
      }
      affine(scales, zps, 0, half(b, at), -half(b, at + 2), codes, 0, 32);
    },
  },
  Q4_K: {
    values: 256,
    bytes: 144,
    subBlock: 32,
    bits: 4,
    zeroPoints: 'affine',
    topCode: 15,
    decode: (b, at, codes, scales, zps) => {
      const d = half(b, at);
      const dmin = half(b, at + 2);
      for (let j = 0; j < 4; j++) {
        const q = at + 16 + 32 * j;
        for (let l = 0; l < 32; l++) {
          codes[64 * j + l] = b[q + l]! & 15;
          codes[64 * j + 32 + l] = b[q + l]! >> 4;
        }
        for (const part of [0, 1]) {
          const [sc, m] = scaleMinK4(b, at + 4, 2 * j + part);
          affine(scales, zps, 2 * j + part, d * sc, dmin * m, codes, 64 * j + 32 * part, 32);
        }
      }
    },
  },
  Q2_K: {
    values: 256,
    bytes: 84,
    subBlock: 16,
    bits: 4,
    zeroPoints: 'affine',
    topCode: 3,
    decode: (b, at, codes, scales, zps) => {
      const d = half(b, at + 80);
      const dmin = half(b, at + 82);
      let y = 0;
      let is = 0;
      for (let n = 0; n < 2; n++) {
        const q = at + 16 + n * 32;
        for (let shift = 0; shift < 8; shift += 2) {
          for (const half16 of [0, 16]) {
            for (let l = 0; l < 16; l++) codes[y + l] = (b[q + l + half16]! >> shift) & 3;
            const sc = b[at + is]!;
            affine(scales, zps, is, d * (sc & 15), dmin * (sc >> 4), codes, y, 16);
            is += 1;
            y += 16;
          }
        }
      }
    },
  },
  Q3_K: {
    values: 256,
    bytes: 110,
    subBlock: 16,
    bits: 4,
    zeroPoints: 'default',
    decode: (b, at, codes, scales) => {
      const d = half(b, at + 108);
      const sub = q3kScales(b, at + 96);
      let y = 0;
      let is = 0;
      let m = 1;
      for (let n = 0; n < 2; n++) {
        const q = at + 32 + n * 32;
        for (let shift = 0; shift < 8; shift += 2, m <<= 1) {
          for (const half16 of [0, 16]) {
            for (let l = 0; l < 16; l++) {
              const low = (b[q + l + half16]! >> shift) & 3;
              codes[y + l] = low - (b[at + l + half16]! & m ? 0 : 4) + 8;
            }
            scales[is] = d * sub[is]!;
            is += 1;
            y += 16;
          }
        }
      }
    },
  },
  Q6_K: {
    values: 256,
    bytes: 210,
    subBlock: 16,
    bits: 8,
    zeroPoints: 'default',
    decode: (b, at, codes, scales) => {
      const d = half(b, at + 208);
      for (let n = 0; n < 2; n++) {
        const ql = at + 64 * n;
        const qh = at + 128 + 32 * n;
        for (let l = 0; l < 32; l++) {
          const h = b[qh + l]!;
          const y = 128 * n + l;
          codes[y] = ((b[ql + l]! & 15) | ((h & 3) << 4)) - 32 + 128;
          codes[y + 32] = ((b[ql + l + 32]! & 15) | (((h >> 2) & 3) << 4)) - 32 + 128;
          codes[y + 64] = ((b[ql + l]! >> 4) | (((h >> 4) & 3) << 4)) - 32 + 128;
          codes[y + 96] = ((b[ql + l + 32]! >> 4) | (((h >> 6) & 3) << 4)) - 32 + 128;
        }
        for (let s = 0; s < 8; s++) scales[8 * n + s] = d * ((b[at + 192 + 8 * n + s]! << 24) >> 24);
      }
    },
  },
};

/** Types re-quantized to 8-bit affine blocks of this size (uint8 zero points). */
const REQUANTIZED = new Set(['Q5_1', 'Q5_K']);
const REQUANT_BLOCK = 32;

/** Whether `typeName` maps to MatMulNBits blocks, and how faithfully. */
export function blockFidelityOf(typeName: string): MappingFidelity | null {
  const map = MAPPINGS[typeName];
  if (map) return map.zeroPoints === 'affine' ? 'offset-rounded' : 'exact';
  return REQUANTIZED.has(typeName) ? 'requantized' : null;
}

/**
 * A [numRows, numCols] matrix stored in ggml type `typeName` (row-major, rows of whole blocks) as
 * MatMulNBits blocks. Throws for a type blockFidelityOf gives null.
 */
export function toMatMulBlocks(
  typeName: string,
  bytes: Uint8Array,
  numRows: number,
  numCols: number,
): GgufBlockWeight {
  if (REQUANTIZED.has(typeName))
    return requantize8(dequantize(typeName, bytes, numRows * numCols), numRows, numCols);
  const map = MAPPINGS[typeName];
  if (!map) throw new Error(`ggml type ${typeName} has no MatMulNBits mapping`);
  const numSub = map.values / map.subBlock;
  const isAffine = map.zeroPoints === 'affine';
  const bits = isAffine ? 8 : map.bits;
  const numBlocks = (numRows * numCols) / map.subBlock;
  const blockBytes = (map.subBlock * bits) / 8;
  const data = new Uint8Array(numBlocks * blockBytes);
  const scales = new Float32Array(numBlocks);
  const zeroPoints = isAffine ? new Uint8Array(numBlocks) : null;
  const codes = new Uint8Array(map.values);
  const blockScales = new Float32Array(numSub);
  const blockOffsets = new Float32Array(numSub);
  const numGgufBlocks = (numRows * numCols) / map.values;
  for (let g = 0; g < numGgufBlocks; g++) {
    map.decode(bytes, g * map.bytes, codes, blockScales, blockOffsets);
    const firstSub = g * numSub; // sub-blocks run on across rows: numCols is a whole number of ggml blocks
    if (isAffine) widenAffine(codes, blockScales, blockOffsets, map.topCode!, map.subBlock);
    scales.set(blockScales, firstSub);
    if (zeroPoints) for (let s = 0; s < numSub; s++) zeroPoints[firstSub + s] = blockOffsets[s]!;
    packCodes(codes, bits, data, firstSub * blockBytes);
  }
  return { kind: 'blocks', bits, blockSize: map.subBlock, numRows, numCols, data, scales, zeroPoints };
}

/**
 * Affine sub-blocks (scale × (code − offset), offset a float) as 8-bit blocks: codes × k plus a
 * shift r, scale / k, zero point r + round(k × offset). k is the largest factor that keeps codes and
 * zero point within 0…255 (`widen` for a block whose values straddle zero, less for one whose
 * values all lie on one side); `offsets` receives the zero points. Error: the offset, rounded to
 * 1/(2k) of the block's step.
 */
function widenAffine(
  codes: Uint8Array,
  scales: Float32Array,
  offsets: Float32Array,
  topCode: number,
  subBlock: number,
): void {
  for (let s = 0; s < scales.length; s++) {
    const offset = offsets[s]!;
    const span = Math.max(topCode + Math.max(0, -offset), offset);
    const k = Math.max(1, Math.floor(255 / span));
    const shift = offset < 0 ? Math.round(-k * offset) : 0;
    const zp = Math.min(255, Math.max(0, shift + Math.round(k * offset)));
    for (let j = s * subBlock; j < (s + 1) * subBlock; j++) codes[j] = Math.min(255, codes[j]! * k + shift);
    scales[s] = scales[s]! / k;
    offsets[s] = zp;
  }
}

/** Codes into MatMulNBits bytes: 8-bit as they are; 4-bit two a byte, the even element in the low nibble. */
function packCodes(codes: Uint8Array, bits: 4 | 8, out: Uint8Array, at: number): void {
  if (bits === 8) return out.set(codes, at);
  for (let i = 0; i < codes.length; i += 2) out[at + i / 2] = codes[i]! | (codes[i + 1]! << 4);
}

/** Float rows → 8-bit affine blocks of 32 (scale (max − min) / 255, uint8 zero point). */
function requantize8(values: Float32Array, numRows: number, numCols: number): GgufBlockWeight {
  const numBlocks = (numRows * numCols) / REQUANT_BLOCK;
  const data = new Uint8Array(numRows * numCols);
  const scales = new Float32Array(numBlocks);
  const zeroPoints = new Uint8Array(numBlocks);
  for (let block = 0; block < numBlocks; block++) {
    const from = block * REQUANT_BLOCK;
    let min = 0;
    let max = 0;
    for (let j = 0; j < REQUANT_BLOCK; j++) {
      min = Math.min(min, values[from + j]!);
      max = Math.max(max, values[from + j]!);
    }
    const scale = (max - min) / 255;
    const zp = scale === 0 ? 0 : Math.min(255, Math.max(0, Math.round(-min / scale)));
    scales[block] = scale;
    zeroPoints[block] = zp;
    for (let j = 0; j < REQUANT_BLOCK; j++)
      data[from + j] =
        scale === 0 ? zp : Math.min(255, Math.max(0, Math.round(values[from + j]! / scale) + zp));
  }
  return { kind: 'blocks', bits: 8, blockSize: REQUANT_BLOCK, numRows, numCols, data, scales, zeroPoints };
}
