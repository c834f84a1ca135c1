let table: Float32Array | null = null;

/** All 65,536 IEEE half values as float32, built on first use (every half is exactly a float32). */
function halfTable(): Float32Array {
  if (table) return table;
  table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const mantissa = bits & 0x3ff;
    table[bits] =
      exponent === 0
        ? sign * mantissa * 2 ** -24
        : exponent === 0x1f
          ? mantissa === 0
            ? sign * Infinity
            : NaN
          : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return table;
}

/** fp16 bit patterns (what onnxruntime-node returns for float16 tensors) as float32 values. */
export function halfBitsToFloat32(bits: Uint16Array): Float32Array {
  const lookup = halfTable();
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = lookup[bits[i]!]!;
  return out;
}
