// A GGUF matrix's blocks → MatMulNBits blocks, every mapped type exact and at its own width:
// - Q4_0, Q8_0, Q5_0, Q3_K, Q6_K are symmetric (value = scale × signed code): codes shift into
//   MatMulNBits' unsigned range and its default zero point (8 at 4 bits, 128 at 8) undoes the
//   shift;
// - Q4_1, Q4_K, Q2_K (4-bit blocks) and Q5_1, Q5_K (8-bit blocks holding the 5-bit codes) are
//   affine (value = scale × code − min): codes shift so their middle sits at the default zero
//   point, and each block carries an offset (middle × scale − min) that the graph adds as block
//   sums of the input times the offsets (fused-graph/block-offsets.ts). No float zero point:
//   ONNX Runtime 1.30's CPU MatMulNBits runs those about 100× slower.
import { q3kScales, scaleMinK4 } from './ggml-dequantize';
import { halfToFloat } from '../float16';
import type { FactoredScales } from '../fused-graph';
import type { GgufBlockWeight } from './weight-types';

/** How one ggml type maps: sub-block size, code bits, and a block decoder. */
interface BlockMapping {
  /** Values and bytes of one ggml block. */
  values: number;
  bytes: number;
  /** MatMulNBits block size (a ggml block holds values / subBlock of them). */
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
   * Writes the block's codes (symmetric types: already unsigned, centred on the default zero
   * point; affine: as stored, 0…topCode), one scale per sub-block and, affine, one min.
   */
  decode(b: Uint8Array, at: number, codes: Uint8Array, scales: Float32Array, mins: Float32Array): void;
}

/** How a ggml type is laid out once mapped: code bits, block size, and whether blocks carry offsets. */
export interface BlockLayout {
  bits: 4 | 8;
  blockSize: number;
  hasOffsets: boolean;
  /**
   * Blocks per ggml block: each has an int8 step (when several) and the group one half-float
   * factor (FactoredScales); 0 for blocks with float32 scales (a re-quantized embedding).
   */
  groupSize: number;
}

const half = (b: Uint8Array, at: number) => halfToFloat(b[at]! | (b[at + 1]! << 8));
const u32 = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

const MAPPINGS: Record<string, BlockMapping> = {
  Q4_0: {
    values: 32,
    bytes: 18,
    subBlock: 32,
    bits: 4,
    scaleAt: 0,
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
    scaleAt: 0,
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
    scaleAt: 0,
    decode: (b, at, codes, scales) => {
      scales[0] = half(b, at);
      const qh = u32(b, at + 2);
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
    topCode: 15,
    scaleAt: 0,
    minAt: 2,
    isMinNegated: true,
    decode: (b, at, codes, scales, mins) => {
      for (let j = 0; j < 16; j++) {
        codes[j] = b[at + 4 + j]! & 15;
        codes[j + 16] = b[at + 4 + j]! >> 4;
      }
      scales[0] = half(b, at);
      mins[0] = -half(b, at + 2); // ggml adds m: value = d × q + m
    },
  },
  Q5_1: {
    values: 32,
    bytes: 24,
    subBlock: 32,
    bits: 8,
    topCode: 31,
    scaleAt: 0,
    minAt: 2,
    isMinNegated: true,
    decode: (b, at, codes, scales, mins) => {
      const qh = u32(b, at + 4);
      for (let j = 0; j < 16; j++) {
        codes[j] = (b[at + 8 + j]! & 15) | (((qh >>> j) << 4) & 0x10);
        codes[j + 16] = (b[at + 8 + j]! >> 4) | ((qh >>> (j + 12)) & 0x10);
      }
      scales[0] = half(b, at);
      mins[0] = -half(b, at + 2);
    },
  },
  Q4_K: {
    values: 256,
    bytes: 144,
    subBlock: 32,
    bits: 4,
    topCode: 15,
    scaleAt: 0,
    minAt: 2,
    decode: (b, at, codes, scales, mins) => {
      const d = half(b, at);
      const dmin = half(b, at + 2);
      for (let j = 0; j < 4; j++) {
        const q = at + 16 + 32 * j;
        for (let l = 0; l < 32; l++) {
          codes[64 * j + l] = b[q + l]! & 15;
          codes[64 * j + 32 + l] = b[q + l]! >> 4;
        }
      }
      kQuantScales(b, at + 4, d, dmin, scales, mins);
    },
  },
  Q5_K: {
    values: 256,
    bytes: 176,
    subBlock: 32,
    bits: 8,
    topCode: 31,
    scaleAt: 0,
    minAt: 2,
    decode: (b, at, codes, scales, mins) => {
      const d = half(b, at);
      const dmin = half(b, at + 2);
      for (let j = 0; j < 4; j++) {
        const ql = at + 48 + 32 * j;
        for (let l = 0; l < 32; l++) {
          const qh = b[at + 16 + l]!;
          codes[64 * j + l] = (b[ql + l]! & 15) | (((qh >> (2 * j)) & 1) << 4);
          codes[64 * j + 32 + l] = (b[ql + l]! >> 4) | (((qh >> (2 * j + 1)) & 1) << 4);
        }
      }
      kQuantScales(b, at + 4, d, dmin, scales, mins);
    },
  },
  Q2_K: {
    values: 256,
    bytes: 84,
    subBlock: 16,
    bits: 4,
    topCode: 3,
    scaleAt: 80,
    minAt: 82,
    decode: (b, at, codes, scales, mins) => {
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
  },
  Q3_K: {
    values: 256,
    bytes: 110,
    subBlock: 16,
    bits: 4,
    scaleAt: 108,
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
    scaleAt: 208,
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

/** How `typeName` lays out as MatMulNBits blocks, or null when it has no mapping. */
export function blockLayoutOf(typeName: string): BlockLayout | null {
  const map = MAPPINGS[typeName];
  if (!map) return null;
  return {
    bits: map.bits,
    blockSize: map.subBlock,
    hasOffsets: map.topCode !== undefined,
    groupSize: map.values / map.subBlock,
  };
}

/**
 * A [numRows, numCols] matrix stored in ggml type `typeName` (row-major, rows of whole blocks) as
 * MatMulNBits blocks, affine types with their offsets; every value as ggml decodes it (up to the
 * float32 rounding of an offset). Throws for a type blockLayoutOf gives null.
 */
export function toMatMulBlocks(
  typeName: string,
  bytes: Uint8Array,
  numRows: number,
  numCols: number,
): GgufBlockWeight {
  const map = MAPPINGS[typeName];
  if (!map) throw new Error(`ggml type ${typeName} has no MatMulNBits mapping`);
  const { bits, subBlock, topCode } = map;
  const numSub = map.values / subBlock;
  const numBlocks = (numRows * numCols) / subBlock;
  const blockBytes = (subBlock * bits) / 8;
  const data = new Uint8Array(numBlocks * blockBytes);
  const scales = new Float32Array(numBlocks);
  const offsets = topCode === undefined ? null : new Float32Array(numBlocks);
  const codes = new Uint8Array(map.values);
  const blockScales = new Float32Array(numSub);
  const blockMins = new Float32Array(numSub);
  // Affine codes move so their middle sits on the default zero point: the offset stays small.
  const middle = topCode === undefined ? 0 : (topCode + 1) / 2;
  const shift = (1 << (bits - 1)) - middle;
  const numGgufBlocks = (numRows * numCols) / map.values;
  let factored: FactoredScales | null = factoredOf(map, numGgufBlocks, middle);
  for (let g = 0; g < numGgufBlocks; g++) {
    map.decode(bytes, g * map.bytes, codes, blockScales, blockMins);
    const firstSub = g * numSub; // sub-blocks run on across rows: numCols is a whole number of ggml blocks
    scales.set(blockScales, firstSub);
    if (factored && !factorScales(map, bytes, g, blockScales, blockMins, factored)) factored = null;
    if (offsets) {
      for (let s = 0; s < numSub; s++) offsets[firstSub + s] = middle * blockScales[s]! - blockMins[s]!;
      if (shift !== 0) for (let j = 0; j < codes.length; j++) codes[j] = codes[j]! + shift;
    }
    packCodes(codes, bits, data, firstSub * blockBytes);
  }
  return {
    kind: 'blocks',
    bits,
    blockSize: subBlock,
    numRows,
    numCols,
    data,
    scales,
    zeroPoints: null,
    offsets,
    factored,
  };
}

/** Empty factored scales for `numGgufBlocks` blocks of `map` (steps only where a block has sub-blocks). */
function factoredOf(map: BlockMapping, numGgufBlocks: number, middle: number): FactoredScales {
  const groupSize = map.values / map.subBlock;
  const steps = () => (groupSize > 1 ? new Int8Array(numGgufBlocks * groupSize) : null);
  return {
    groupSize,
    scaleSteps: steps(),
    scaleFactors: new Uint16Array(numGgufBlocks),
    mins:
      map.minAt === undefined ? null : { middle, steps: steps(), factors: new Uint16Array(numGgufBlocks) },
  };
}

/**
 * Block `g`'s half-float factors as stored, and each sub-block's step = its decoded value ÷ the
 * factor. False when some factor × step does not give the decoded value back exactly (a NaN or
 * infinite factor): the tensor then keeps its float32 scales.
 */
function factorScales(
  map: BlockMapping,
  bytes: Uint8Array,
  g: number,
  blockScales: Float32Array,
  blockMins: Float32Array,
  factored: FactoredScales,
): boolean {
  const at = g * map.bytes;
  const scaleBits = bytes[at + map.scaleAt]! | (bytes[at + map.scaleAt + 1]! << 8);
  factored.scaleFactors[g] = scaleBits;
  if (!stepsOf(scaleBits, blockScales, factored.scaleSteps, g)) return false;
  if (!factored.mins || map.minAt === undefined) return true;
  const minBits =
    (bytes[at + map.minAt]! | (bytes[at + map.minAt + 1]! << 8)) ^ (map.isMinNegated ? 0x8000 : 0);
  factored.mins.factors[g] = minBits;
  return stepsOf(minBits, blockMins, factored.mins.steps, g);
}

/** Writes `values` ÷ the half `factorBits` into `steps` at group `g`; false unless every step is exact. */
function stepsOf(factorBits: number, values: Float32Array, steps: Int8Array | null, g: number): boolean {
  const factor = halfToFloat(factorBits);
  for (let s = 0; s < values.length; s++) {
    const step = steps === null ? 1 : factor === 0 ? 0 : values[s]! / factor;
    if (!Number.isInteger(step) || step < -128 || step > 127 || Math.fround(step * factor) !== values[s])
      return false;
    if (steps) steps[g * values.length + s] = step;
  }
  return true;
}

/** Codes into MatMulNBits bytes: 8-bit as they are; 4-bit two a byte, the even element in the low nibble. */
function packCodes(codes: Uint8Array, bits: 4 | 8, out: Uint8Array, at: number): void {
  if (bits === 8) return out.set(codes, at);
  for (let i = 0; i < codes.length; i += 2) out[at + i / 2] = codes[i]! | (codes[i + 1]! << 4);
}
