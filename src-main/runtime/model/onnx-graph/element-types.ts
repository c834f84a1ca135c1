/**
 * Every ONNX element type, once: by the name onnxruntime-node uses, its TensorProto.DataType code
 * and its bytes per element (4-bit types pack two per byte; null where a size means nothing here:
 * strings, and complex types no graph this app reads carries). The code and size tables below
 * derive from it.
 */
const ELEMENT_TYPES = {
  float32: { code: 1, bytes: 4 },
  uint8: { code: 2, bytes: 1 },
  int8: { code: 3, bytes: 1 },
  uint16: { code: 4, bytes: 2 },
  int16: { code: 5, bytes: 2 },
  int32: { code: 6, bytes: 4 },
  int64: { code: 7, bytes: 8 },
  string: { code: 8, bytes: null },
  bool: { code: 9, bytes: 1 },
  float16: { code: 10, bytes: 2 },
  float64: { code: 11, bytes: 8 },
  uint32: { code: 12, bytes: 4 },
  uint64: { code: 13, bytes: 8 },
  complex64: { code: 14, bytes: null },
  complex128: { code: 15, bytes: null },
  bfloat16: { code: 16, bytes: 2 },
  float8e4m3fn: { code: 17, bytes: 1 },
  float8e4m3fnuz: { code: 18, bytes: 1 },
  float8e5m2: { code: 19, bytes: 1 },
  float8e5m2fnuz: { code: 20, bytes: 1 },
  uint4: { code: 21, bytes: 0.5 },
  int4: { code: 22, bytes: 0.5 },
  float4e2m1: { code: 23, bytes: 0.5 },
} as const;

/** An ONNX element type's name as onnxruntime-node spells it (`float32`, `float16`, `int64`, …). */
export type ElementTypeName = keyof typeof ELEMENT_TYPES;

/** Element types with a size, each mapped to its bytes per element. */
type SizedName = {
  [K in ElementTypeName]: (typeof ELEMENT_TYPES)[K]['bytes'] extends number ? K : never;
}[ElementTypeName];

const ENTRIES = Object.entries(ELEMENT_TYPES) as [ElementTypeName, { code: number; bytes: number | null }][];
const NAMES = new Map(ENTRIES.map(([name, { code }]) => [code, name]));

/** ONNX TensorProto.DataType code of each element type (Cast's `to` takes these). */
export const ELEMENT_TYPE_CODE = Object.fromEntries(
  ENTRIES.map(([name, { code }]) => [name, code]),
) as Readonly<Record<ElementTypeName, number>>;

/** The name of an ONNX element type code (`type<N>` for codes this table does not know). */
export function elementTypeName(code: number): string {
  return NAMES.get(code) ?? `type${code}`;
}

/** Bytes per element of each storage type (4-bit types pack two per byte); absent for unsized ones. */
export const ELEMENT_BYTES = Object.fromEntries(
  ENTRIES.flatMap(([name, { bytes }]) => (bytes === null ? [] : [[name, bytes]])),
) as Readonly<Record<SizedName, number>> & Readonly<Record<string, number | undefined>>;

/** Short names the UI shows for a weight storage kind (`fp16`, `int4`, …). */
export const SHORT_WEIGHT_NAMES: Record<string, string> = {
  float32: 'fp32',
  float16: 'fp16',
  bfloat16: 'bf16',
  float64: 'fp64',
};
