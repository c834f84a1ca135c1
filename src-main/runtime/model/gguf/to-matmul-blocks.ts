// A GGUF matrix's blocks → MatMulNBits blocks, every mapped type exact and at its own width. The
// codes and scales come from the type table's unpacker (ggml-block-unpack.ts):
// - symmetric types' codes arrive centred on MatMulNBits' default zero point, which undoes the
//   shift;
// - affine types' codes shift so their middle sits at the default zero point, and each block
//   carries an offset (middle × scale − min) that the graph adds as block sums of the input times
//   the offsets (fused-graph/block-offsets.ts). No float zero point: ONNX Runtime 1.30's CPU
//   MatMulNBits runs those about 100× slower.
import { halfToFloat } from '../float16';
import type { FactoredScales } from '../fused-graph/weight-set';
import type { BlockUnpack } from './ggml-block-unpack';
import { ggmlTypeNamed } from './ggml-types';
import type { GgmlType } from './ggml-types';
import type { GgufBlockWeight } from './weight-types';

/** A ggml type that has an unpacker, with it. */
interface BlockMapping {
  type: GgmlType;
  unpack: BlockUnpack;
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

/** `typeName`'s type and unpacker, or null when it has none. */
function mappingOf(typeName: string): BlockMapping | null {
  const type = ggmlTypeNamed(typeName);
  return type?.unpack ? { type, unpack: type.unpack } : null;
}

/** How `typeName` lays out as MatMulNBits blocks, or null when it has no mapping. */
export function blockLayoutOf(typeName: string): BlockLayout | null {
  const map = mappingOf(typeName);
  if (!map) return null;
  const { bits, subBlock, topCode } = map.unpack;
  return {
    bits,
    blockSize: subBlock,
    hasOffsets: topCode !== undefined,
    groupSize: map.type.blockValues / subBlock,
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
  const map = mappingOf(typeName);
  if (!map) throw new Error(`ggml type ${typeName} has no MatMulNBits mapping`);
  const { bits, subBlock, topCode } = map.unpack;
  const { blockValues, blockBytes: ggufBlockBytes } = map.type;
  const numSub = blockValues / subBlock;
  const numBlocks = (numRows * numCols) / subBlock;
  const blockBytes = (subBlock * bits) / 8;
  const data = new Uint8Array(numBlocks * blockBytes);
  const scales = new Float32Array(numBlocks);
  const offsets = topCode === undefined ? null : new Float32Array(numBlocks);
  const codes = new Uint8Array(blockValues);
  const blockScales = new Float32Array(numSub);
  const blockMins = new Float32Array(numSub);
  // Affine codes move so their middle sits on the default zero point: the offset stays small.
  const middle = topCode === undefined ? 0 : (topCode + 1) / 2;
  const shift = (1 << (bits - 1)) - middle;
  const numGgufBlocks = (numRows * numCols) / blockValues;
  let factored: FactoredScales | null = factoredOf(map, numGgufBlocks, middle);
  for (let g = 0; g < numGgufBlocks; g++) {
    map.unpack.unpack(bytes, g * ggufBlockBytes, codes, blockScales, blockMins);
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
  const groupSize = map.type.blockValues / map.unpack.subBlock;
  const steps = () => (groupSize > 1 ? new Int8Array(numGgufBlocks * groupSize) : null);
  return {
    groupSize,
    scaleSteps: steps(),
    scaleFactors: new Uint16Array(numGgufBlocks),
    mins:
      map.unpack.minAt === undefined
        ? null
        : { middle, steps: steps(), factors: new Uint16Array(numGgufBlocks) },
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
  const { scaleAt, minAt, isMinNegated } = map.unpack;
  const at = g * map.type.blockBytes;
  const scaleBits = bytes[at + scaleAt]! | (bytes[at + scaleAt + 1]! << 8);
  factored.scaleFactors[g] = scaleBits;
  if (!stepsOf(scaleBits, blockScales, factored.scaleSteps, g)) return false;
  if (!factored.mins || minAt === undefined) return true;
  const minBits = (bytes[at + minAt]! | (bytes[at + minAt + 1]! << 8)) ^ (isMinNegated ? 0x8000 : 0);
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
