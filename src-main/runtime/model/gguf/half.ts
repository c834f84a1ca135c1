// IEEE half → float, by a 64k-entry table (ggml's scales and f16 tensors are half floats).

const TABLE = (() => {
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const fraction = bits & 0x3ff;
    table[bits] =
      exponent === 0
        ? sign * fraction * 2 ** -24
        : exponent === 31
          ? fraction
            ? NaN
            : sign * Infinity
          : sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
  }
  return table;
})();

/** The float value of IEEE half bits (exact: every half is a float). */
export function halfToFloat(bits: number): number {
  return TABLE[bits & 0xffff]!;
}
