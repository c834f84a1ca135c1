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

/**
 * Codes stored two a byte: each run of `runBytes` bytes at `at` gives `runBytes` values from the
 * low nibbles, then `runBytes` from the high ones (ggml's order for Q4_0/Q5_0/Q4_K/Q5_K's lows).
 */
function nibbles(b: Uint8Array, at: number, runBytes: number, numRuns: number, codes: Uint8Array): void {
  for (let r = 0; r < numRuns; r++) {
    const q = at + runBytes * r;
    const y = 2 * runBytes * r;
    for (let l = 0; l < runBytes; l++) {
      codes[y + l] = b[q + l]! & 15;
      codes[y + runBytes + l] = b[q + l]! >> 4;
    }
  }
}

/** Sets bit 4 of Q5_0 / Q5_1's 32 codes from the block's u32 of high bits at `at` (value y: bit y). */
function fifthBits(b: Uint8Array, at: number, codes: Uint8Array): void {
  const qh = u32(b, at);
  for (let y = 0; y < 32; y++) codes[y] = codes[y]! | (((qh >>> y) & 1) << 4);
}

/** Q4_0: a half scale, 32 4-bit codes; value = d × (q − 8). */
export const Q4_0_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 4,
  scaleAt: 0,
  unpack: (b, at, codes, scales) => {
    scales[0] = half(b, at);
    nibbles(b, at + 2, 16, 1, codes);
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
    nibbles(b, at + 6, 16, 1, codes);
    fifthBits(b, at + 2, codes);
    for (let y = 0; y < 32; y++) codes[y] = codes[y]! - 16 + 128;
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
    nibbles(b, at + 4, 16, 1, codes);
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
    nibbles(b, at + 8, 16, 1, codes);
    fifthBits(b, at + 4, codes);
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
    nibbles(b, at + 16, 32, 4, codes);
    kQuantScales(b, at + 4, half(b, at), half(b, at + 2), scales, mins);
  },
};

/** Q5_K: as Q4_K with a fifth code bit per value (value y: bit y ÷ 32 of high byte y mod 32). */
export const Q5_K_UNPACK: BlockUnpack = {
  subBlock: 32,
  bits: 8,
  topCode: 31,
  scaleAt: 0,
  minAt: 2,
  unpack: (b, at, codes, scales, mins) => {
    nibbles(b, at + 48, 32, 4, codes);
    for (let y = 0; y < 256; y++) codes[y] = codes[y]! | (((b[at + 16 + (y & 31)]! >> (y >> 5)) & 1) << 4);
    kQuantScales(b, at + 4, half(b, at), half(b, at + 2), scales, mins);
  },
};

/**
 * The low 2 bits of a Q2_K / Q3_K block's 256 codes (64 bytes at `at`), in ggml's value order:
 * two halves of 128 values, each byte's four bit pairs in turn, 16 values per sub-block.
 */
function twoBitLows(b: Uint8Array, at: number, codes: Uint8Array): void {
  let y = 0;
  for (let n = 0; n < 2; n++) {
    const q = at + n * 32;
    for (let shift = 0; shift < 8; shift += 2) {
      for (let l = 0; l < 32; l++) codes[y++] = (b[q + l]! >> shift) & 3;
    }
  }
}

/** Q2_K: half d and dmin, 16 sub-blocks of 16 2-bit codes with 4-bit scales and mins. */
export const Q2_K_UNPACK: BlockUnpack = {
  subBlock: 16,
  bits: 4,
  topCode: 3,
  scaleAt: 80,
  minAt: 82,
  unpack: (b, at, codes, scales, mins) => {
    twoBitLows(b, at + 16, codes);
    const d = half(b, at + 80);
    const dmin = half(b, at + 82);
    for (let is = 0; is < 16; is++) {
      const sc = b[at + is]!;
      scales[is] = d * (sc & 15);
      mins[is] = dmin * (sc >> 4);
    }
  },
};

/** Q3_K: half d, 16 sub-blocks of 16 3-bit codes (high bit as a mask) with signed 6-bit scales. */
export const Q3_K_UNPACK: BlockUnpack = {
  subBlock: 16,
  bits: 4,
  scaleAt: 108,
  unpack: (b, at, codes, scales) => {
    twoBitLows(b, at + 32, codes);
    // Value y's high bit sits in mask byte y mod 32, bit y ÷ 32; a clear bit means low − 4.
    for (let y = 0; y < 256; y++) codes[y] = codes[y]! + (b[at + (y & 31)]! & (1 << (y >> 5)) ? 8 : 4);
    const d = half(b, at + 108);
    const sub = q3kScales(b, at + 96);
    for (let is = 0; is < 16; is++) scales[is] = d * sub[is]!;
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
