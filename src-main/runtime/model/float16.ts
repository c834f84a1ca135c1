// Bit-level conversions between float32 and the 16-bit float formats used by
// weight files (IEEE half "F16" and bfloat16 "BF16"). No Float16Array on Node 20,
// so everything works on raw Uint16 bit patterns.

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

let halfToFloatTable: Float32Array | undefined;

/** Decodes one IEEE half bit pattern (0..0xffff) to its exact float value. */
export function halfBitsToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Table of all 65536 half values as float32; built once on first use. */
function halfTable(): Float32Array {
  if (halfToFloatTable) return halfToFloatTable;
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) table[bits] = halfBitsToFloat(bits);
  halfToFloatTable = table;
  return table;
}

/**
 * The float value of IEEE half bits by table (exact: every half is a float); the hot path of
 * dequantizing ggml blocks, whose scales are halves. Bits above 16 are ignored.
 */
export function halfToFloat(bits: number): number {
  return (halfToFloatTable ?? halfTable())[bits & 0xffff]!;
}

/** Converts IEEE half bit patterns to float32 values (exact: every half is a float32). */
export function halfArrayToFloat32(halfBits: Uint16Array): Float32Array {
  const table = halfTable();
  const out = new Float32Array(halfBits.length);
  for (let i = 0; i < halfBits.length; i++) out[i] = table[halfBits[i]!]!;
  return out;
}

/** Converts bfloat16 bit patterns to float32 values (exact: bf16 is float32's top half). */
export function bfloat16ArrayToFloat32(bf16Bits: Uint16Array): Float32Array {
  const out = new Float32Array(bf16Bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bf16Bits.length; i++) outBits[i] = bf16Bits[i]! << 16;
  return out;
}

const F32_INFINITY_BITS = 255 << 23;
const F16_OVERFLOW_BITS = (127 + 16) << 23;
const F16_MIN_NORMAL_BITS = 113 << 23;
const DENORMAL_MAGIC_BITS = (127 - 15 + 23 - 10 + 1) << 23;
const DENORMAL_MAGIC = 0.5; // float value of DENORMAL_MAGIC_BITS

/**
 * Rounds one float32 bit pattern to the nearest IEEE half bit pattern (ties to
 * even, overflow to ±Infinity, NaN stays NaN). After F. Giesen's float_to_half_fast3_rtne.
 */
export function float32BitsToHalfBits(floatBits: number): number {
  const signBits = (floatBits >>> 16) & 0x8000;
  let magnitudeBits = floatBits & 0x7fffffff;
  let halfBits: number;
  if (magnitudeBits >= F16_OVERFLOW_BITS) {
    halfBits = magnitudeBits > F32_INFINITY_BITS ? 0x7e00 : 0x7c00;
  } else if (magnitudeBits < F16_MIN_NORMAL_BITS) {
    scratchU32[0] = magnitudeBits;
    scratchF32[0] = scratchF32[0]! + DENORMAL_MAGIC;
    halfBits = scratchU32[0]! - DENORMAL_MAGIC_BITS;
  } else {
    const isMantissaOdd = (magnitudeBits >>> 13) & 1;
    magnitudeBits += ((15 - 127) << 23) + 0xfff + isMantissaOdd;
    halfBits = magnitudeBits >>> 13;
  }
  return halfBits | signBits;
}

/**
 * Writes `source` as IEEE half bit patterns into `target` (same length).
 * Used to store fp16 initializers without per-element JS objects.
 */
export function float32ToHalfInto(source: Float32Array, target: Uint16Array): void {
  if (target.length !== source.length)
    throw new Error(`float32ToHalfInto: length ${source.length} vs ${target.length}`);
  const sourceBits = new Uint32Array(source.buffer, source.byteOffset, source.length);
  for (let i = 0; i < sourceBits.length; i++) target[i] = float32BitsToHalfBits(sourceBits[i]!);
}
