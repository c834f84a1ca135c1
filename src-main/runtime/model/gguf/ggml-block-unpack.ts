// How each convertible ggml block splits into integer codes, one scale per sub-block and (affine
// types) one min per sub-block, after ggml-quants.c's dequantize_row_*. Both readers of ggml
// blocks derive from these: ggml-dequantize.ts (value = scale × (code − codeZero) − min) and
// to-matmul-blocks.ts (the codes and scales as MatMulNBits blocks). ggml-types.ts attaches each
// unpacker to its type, beside the type's block size and bytes.
// - Q4_0, Q8_0, Q5_0, Q3_K, Q6_K are symmetric (value = scale × signed code): codes come shifted
//   into MatMulNBits' unsigned range, centred on its default zero point (8 at 4 bits, 128 at 8);
// - Q4_1, Q4_K, Q2_K (4-bit codes) and Q5_1, Q5_K (5-bit codes in 8-bit blocks) are affine
//   (value = scale × code − min): codes come as stored, 0…topCode.
import { halfToFloat } from '../float16';

/** How one ggml block type unpacks: sub-block size, code bits, where its half-float factors sit. */
export interface BlockUnpack {
  /** Values per sub-block (one scale, one min each); a ggml block holds blockValues / subBlock. */
  subBlock: number;
  bits: 4 | 8;
  /** Affine types only: codes run 0…topCode, and each sub-block has a min. */
  topCode?: number;
  /** Byte offset of the block's half-float scale (K-quants: the super-block's d). */
  scaleAt: number;
  /** Affine types: byte offset of the half-float min (K-quants: dmin); negated for Q4_1 / Q5_1's added m. */
  minAt?: number;
  isMinNegated?: boolean;
  /**
   * Writes the block at `at`'s codes (symmetric types: unsigned, centred on codeZeroOf; affine:
   * as stored), one scale per sub-block and, affine, one min per sub-block.
   */
  unpack(b: Uint8Array, at: number, codes: Uint8Array, scales: Float32Array, mins: Float32Array): void;
}

/** The code that stands for 0: MatMulNBits' default zero point when symmetric, 0 when affine. */
export function codeZeroOf(unpack: BlockUnpack): number {
  return unpack.topCode === undefined ? 1 << (unpack.bits - 1) : 0;
}

const half = (b: Uint8Array, at: number) => halfToFloat(b[at]! | (b[at + 1]! << 8));
const u32 = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** ggml's get_scale_min_k4: the j-th 6-bit scale and min of a Q4_K/Q5_K block's 12 scale bytes. */
function scaleMinK4(b: Uint8Array, at: number, j: number): [number, number] {
  if (j < 4) return [b[at + j]! & 63, b[at + j + 4]! & 63];
  return [
    (b[at + j + 4]! & 0xf) | ((b[at + j - 4]! >> 6) << 4),
    (b[at + j + 4]! >> 4) | ((b[at + j]! >> 6) << 4),
  ];
}

/** The 16 signed 6-bit sub-block scales of a Q3_K block (its 12 scale bytes at `at`), minus 32. */
function q3kScales(b: Uint8Array, at: number): Int8Array {
  const aux = new Uint32Array([u32(b, at), u32(b, at + 4), u32(b, at + 8), 0]);
  const tmp = aux[2]!;
  const m1 = 0x03030303;
  const m2 = 0x0f0f0f0f;
  aux[2] = ((aux[0]! >>> 4) & m2) | (((tmp >>> 4) & m1) << 4);
  aux[3] = ((aux[1]! >>> 4) & m2) | (((tmp >>> 6) & m1) << 4);
  aux[0] = (aux[0]! & m2) | (((tmp >>> 0) & m1) << 4);
  aux[1] = (aux[1]! & m2) | (((tmp >>> 2) & m1) << 4);
  return new Int8Array(new Uint8Array(aux.buffer).map((s) => s - 32));
}

/** The 8 sub-block scales and mins of a Q4_K / Q5_K block (its 12 scale bytes at `at`). */
function kQuantScales(
  b: Uint8Array,
  at: number,
  d: number,
  dmin: number,
  scales: Float32Array,
  mins: Float32Array,
): void {
  for (let s = 0; s < 8; s++) {
    const [sc, m] = scaleMinK4(b, at, s);
    scales[s] = d * sc;
    mins[s] = dmin * m;
  }
}

/** Q4_0: a half scale, 32 4-bit codes; value = d × (q − 8). */
export const Q4_0_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 4,
  scaleAt: 0,
  unpack: (b, at, codes, scales) => {
    scales[0] = half(b, at);
    for (let j = 0; j < 16; j++) {
      codes[j] = b[at + 2 + j]! & 15;
      codes[j + 16] = b[at + 2 + j]! >> 4;
    }
  },
};

/** Q8_0: a half scale, 32 int8 codes. */
export const Q8_0_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 8,
  scaleAt: 0,
  unpack: (b, at, codes, scales) => {
    scales[0] = half(b, at);
    for (let j = 0; j < 32; j++) codes[j] = (b[at + 2 + j]! + 128) & 255;
  },
};

/** Q5_0: a half scale, 32 5-bit codes (high bits in a u32); value = d × (q − 16). */
export const Q5_0_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 8,
  scaleAt: 0,
  unpack: (b, at, codes, scales) => {
    scales[0] = half(b, at);
    const qh = u32(b, at + 2);
    for (let j = 0; j < 16; j++) {
      codes[j] = ((b[at + 6 + j]! & 15) | (((qh >>> j) << 4) & 0x10)) - 16 + 128;
      codes[j + 16] = ((b[at + 6 + j]! >> 4) | ((qh >>> (j + 12)) & 0x10)) - 16 + 128;
    }
  },
};

/** Q4_1: half d and m, 32 4-bit codes; value = d × q + m. */
export const Q4_1_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 4,
  topCode: 15,
  scaleAt: 0,
  minAt: 2,
  isMinNegated: true,
  unpack: (b, at, codes, scales, mins) => {
    for (let j = 0; j < 16; j++) {
      codes[j] = b[at + 4 + j]! & 15;
      codes[j + 16] = b[at + 4 + j]! >> 4;
    }
    scales[0] = half(b, at);
    mins[0] = -half(b, at + 2); // ggml adds m: value = d × q + m
  },
};

/** Q5_1: half d and m, 32 5-bit codes; value = d × q + m. */
export const Q5_1_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 8,
  topCode: 31,
  scaleAt: 0,
  minAt: 2,
  isMinNegated: true,
  unpack: (b, at, codes, scales, mins) => {
    const qh = u32(b, at + 4);
    for (let j = 0; j < 16; j++) {
      codes[j] = (b[at + 8 + j]! & 15) | (((qh >>> j) << 4) & 0x10);
      codes[j + 16] = (b[at + 8 + j]! >> 4) | ((qh >>> (j + 12)) & 0x10);
    }
    scales[0] = half(b, at);
    mins[0] = -half(b, at + 2);
  },
};

/** Q4_K: half d and dmin, 8 sub-blocks of 32 4-bit codes with 6-bit scales and mins. */
export const Q4_K_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 4,
  topCode: 15,
  scaleAt: 0,
  minAt: 2,
  unpack: (b, at, codes, scales, mins) => {
    for (let j = 0; j < 4; j++) {
      const q = at + 16 + 32 * j;
      for (let l = 0; l < 32; l++) {
        codes[64 * j + l] = b[q + l]! & 15;
        codes[64 * j + 32 + l] = b[q + l]! >> 4;
      }
    }
    kQuantScales(b, at + 4, half(b, at), half(b, at + 2), scales, mins);
  },
};

/** Q5_K: as Q4_K with a fifth code bit per value. */
export const Q5_K_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 8,
  topCode: 31,
  scaleAt: 0,
  minAt: 2,
  unpack: (b, at, codes, scales, mins) => {
    for (let j = 0; j < 4; j++) {
      const ql = at + 48 + 32 * j;
      for (let l = 0; l < 32; l++) {
        const qh = b[at + 16 + l]!;
        codes[64 * j + l] = (b[ql + l]! & 15) | (((qh >> (2 * j)) & 1) << 4);
        codes[64 * j + 32 + l] = (b[ql + l]! >> 4) | (((qh >> (2 * j + 1)) & 1) << 4);
      }
    }
    kQuantScales(b, at + 4, half(b, at), half(b, at + 2), scales, mins);
  },
};

/** Q2_K: half d and dmin, 16 sub-blocks of 16 2-bit codes with 4-bit scales and mins. */
export const Q2_K_UNPACK: BlockUnpack = {
  subBlock: 16,
  bits: 4,
  topCode: 3,
  scaleAt: 80,
  minAt: 82,
  unpack: (b, at, codes, scales, mins) => {
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
          scales[is] = d * (sc & 15);
          mins[is] = dmin * (sc >> 4);
          is += 1;
          y += 16;
        }
      }
    }
  },
};

/** Q3_K: half d, 16 sub-blocks of 16 3-bit codes (high bit as a mask) with signed 6-bit scales. */
export const Q3_K_UNPACK: BlockUnpack = {
  subBlock: 16,
  bits: 4,
  scaleAt: 108,
  unpack: (b, at, codes, scales) => {
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
};

/** Q6_K: half d, 16 sub-blocks of 16 6-bit codes with int8 scales; value = d × s × (q − 32). */
export const Q6_K_UNPACK: BlockUnpack = {
  subBlock: 16,
  bits: 8,
  scaleAt: 208,
  unpack: (b, at, codes, scales) => {
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
};
