/** ONNX TensorProto.DataType codes by the names onnxruntime-node uses for tensor types. */
const NAMES: Record<number, string> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  4: 'uint16',
  5: 'int16',
  6: 'int32',
  7: 'int64',
  8: 'string',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  12: 'uint32',
  13: 'uint64',
  14: 'complex64',
  15: 'complex128',
  16: 'bfloat16',
  17: 'float8e4m3fn',
  18: 'float8e4m3fnuz',
  19: 'float8e5m2',
  20: 'float8e5m2fnuz',
  21: 'uint4',
  22: 'int4',
  23: 'float4e2m1',
};

/** The name of an ONNX element type code (`type<N>` for codes this table does not know). */
export function elementTypeName(code: number): string {
  return NAMES[code] ?? `type${code}`;
}

/** Bytes per element of each storage type (4-bit types pack two per byte). */
export const ELEMENT_BYTES: Record<string, number> = {
  float32: 4,
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  int32: 4,
  int64: 8,
  bool: 1,
  float16: 2,
  float64: 8,
  uint32: 4,
  uint64: 8,
  bfloat16: 2,
  float8e4m3fn: 1,
  float8e4m3fnuz: 1,
  float8e5m2: 1,
  float8e5m2fnuz: 1,
  uint4: 0.5,
  int4: 0.5,
  float4e2m1: 0.5,
};

/** Short names the UI shows for a weight storage kind (`fp16`, `int4`, …). */
export const SHORT_WEIGHT_NAMES: Record<string, string> = {
  float32: 'fp32',
  float16: 'fp16',
  bfloat16: 'bf16',
  float64: 'fp64',
};
