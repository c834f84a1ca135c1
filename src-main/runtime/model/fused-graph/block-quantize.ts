// Block-wise weight quantization in the byte layout of ONNX Runtime's
// com.microsoft MatMulNBits: each of N output rows holds K inputs, cut into
// blocks of `blockSize` along K; each block has one scale (and, asymmetric,
// one zero point). Codes are unsigned and packed low-first: for 4 bits,
// element 2i is the low nibble of byte i. Dequantized value: (code - zp) * scale;
// without stored zero points ORT uses zp = 2^(bits-1) (the symmetric scheme).

/** Bits per weight MatMulNBits supports on CPU and this writer produces. */
export type QuantBits = 4 | 8;

/** `symmetric`: no zero points (zp = 2^(bits-1)); `asymmetric`: one stored zero point per block. */
export type QuantScheme = 'symmetric' | 'asymmetric';

/** What to quantize: N rows of K floats, row-major ([N, K], i.e. the transposed MatMul weight). */
export interface QuantizeInput {
  rows: Float32Array;
  numRows: number;
  numCols: number;
  bits: QuantBits;
  blockSize: number;
  scheme: QuantScheme;
}

/** MatMulNBits' B, scales and zero_points for one weight. */
export interface BlockQuantized {
  /** uint8 [N, numBlocks, blobBytes]. */
  data: Uint8Array;
  /** float [N * numBlocks], row-major. */
  scales: Float32Array;
  /** uint8 [N * ceil(numBlocks * bits / 8)], packed like the data; null when symmetric. */
  zeroPoints: Uint8Array | null;
  numBlocks: number;
  blobBytes: number;
}

/** Checks the block size MatMulNBits accepts: a power of two, at least 16. */
export function checkBlockSize(blockSize: number): void {
  if (!Number.isInteger(blockSize) || blockSize < 16 || (blockSize & (blockSize - 1)) !== 0)
    throw new Error(`block size must be a power of two ≥ 16, got ${blockSize}`);
}

/** Quantizes every row's blocks; a short last block is padded with zeros (codes at the zero point). */
export function blockQuantize(input: QuantizeInput): BlockQuantized {
  const { rows, numRows, numCols, bits, blockSize, scheme } = input;
  checkBlockSize(blockSize);
  if (rows.length !== numRows * numCols) throw new Error(`expected ${numRows}×${numCols} floats`);
  const numBlocks = Math.ceil(numCols / blockSize);
  const blobBytes = (blockSize * bits) / 8;
  const data = new Uint8Array(numRows * numBlocks * blobBytes);
  const scales = new Float32Array(numRows * numBlocks);
  const zpBytesPerRow = Math.ceil((numBlocks * bits) / 8);
  const zeroPoints = scheme === 'asymmetric' ? new Uint8Array(numRows * zpBytesPerRow) : null;
  const codes = new Uint8Array(blockSize);
  for (let row = 0; row < numRows; row++) {
    for (let block = 0; block < numBlocks; block++) {
      const start = row * numCols + block * blockSize;
      const end = row * numCols + Math.min(numCols, (block + 1) * blockSize);
      const { scale, zeroPoint } = quantizeBlock(rows, start, end, bits, scheme, codes);
      scales[row * numBlocks + block] = scale;
      packCodes(codes, bits, data, (row * numBlocks + block) * blobBytes);
      if (zeroPoints) packOne(zeroPoints, row * zpBytesPerRow, block, bits, zeroPoint);
    }
  }
  return { data, scales, zeroPoints, numBlocks, blobBytes };
}

/**
 * One block's codes. Symmetric: the value of largest magnitude maps to code 0 (-2^(bits-1)
 * steps), llama.cpp's q4_0/q8_0 choice, so the full code range is used. Asymmetric: the range
 * [min(0, lo), max(0, hi)] spans every code, zero point rounded so 0 stays exact.
 */
function quantizeBlock(
  values: Float32Array,
  start: number,
  end: number,
  bits: QuantBits,
  scheme: QuantScheme,
  codes: Uint8Array,
): { scale: number; zeroPoint: number } {
  const maxCode = (1 << bits) - 1;
  const mid = 1 << (bits - 1);
  let scale: number;
  let zeroPoint: number;
  if (scheme === 'symmetric') {
    let extreme = 0;
    for (let i = start; i < end; i++) if (Math.abs(values[i]!) > Math.abs(extreme)) extreme = values[i]!;
    scale = Math.fround(extreme / -mid);
    zeroPoint = mid;
  } else {
    let lo = 0;
    let hi = 0;
    for (let i = start; i < end; i++) {
      lo = Math.min(lo, values[i]!);
      hi = Math.max(hi, values[i]!);
    }
    scale = Math.fround((hi - lo) / maxCode);
    zeroPoint = scale === 0 ? mid : Math.min(maxCode, Math.max(0, Math.round(-lo / scale)));
  }
  const inverse = scale === 0 ? 0 : 1 / scale;
  codes.fill(zeroPoint);
  for (let i = start; i < end; i++)
    codes[i - start] = Math.min(maxCode, Math.max(0, Math.round(values[i]! * inverse) + zeroPoint));
  return { scale, zeroPoint };
}

function packCodes(codes: Uint8Array, bits: QuantBits, target: Uint8Array, offset: number): void {
  if (bits === 8) {
    target.set(codes, offset);
    return;
  }
  for (let i = 0; i < codes.length; i += 2) target[offset + i / 2] = codes[i]! | (codes[i + 1]! << 4);
}

function packOne(target: Uint8Array, rowOffset: number, index: number, bits: QuantBits, value: number): void {
  if (bits === 8) {
    target[rowOffset + index] = value;
    return;
  }
  const byte = rowOffset + (index >> 1);
  target[byte] = index & 1 ? target[byte]! | (value << 4) : value;
}

/** Dequantizes back to [N, K] floats (tests and the quality report use it). */
export function blockDequantize(
  q: BlockQuantized,
  numRows: number,
  numCols: number,
  bits: QuantBits,
): Float32Array {
  const out = new Float32Array(numRows * numCols);
  const blockSize = (q.blobBytes * 8) / bits;
  const zpBytesPerRow = Math.ceil((q.numBlocks * bits) / 8);
  for (let row = 0; row < numRows; row++) {
    for (let col = 0; col < numCols; col++) {
      const block = Math.floor(col / blockSize);
      const inBlock = col % blockSize;
      const blob = (row * q.numBlocks + block) * q.blobBytes;
      const code = bits === 8 ? q.data[blob + inBlock]! : nibble(q.data, blob, inBlock);
      const zeroPoint = q.zeroPoints
        ? bits === 8
          ? q.zeroPoints[row * zpBytesPerRow + block]!
          : nibble(q.zeroPoints, row * zpBytesPerRow, block)
        : 1 << (bits - 1);
      out[row * numCols + col] = (code - zeroPoint) * q.scales[row * q.numBlocks + block]!;
    }
  }
  return out;
}

function nibble(bytes: Uint8Array, offset: number, index: number): number {
  const byte = bytes[offset + (index >> 1)]!;
  return index & 1 ? byte >> 4 : byte & 15;
}
