// What a GGUF tensor becomes for the fused graph writer: the writer's neutral weight types
// (model/fused-graph/weight-set.ts, issue 26), restated here until that module is on main.

/** A float tensor as stored: fp32 values, or IEEE half / bfloat16 bit patterns. Row-major [out, in]. */
export type GgufFloatWeight =
  | { kind: 'float'; dtype: 'float32'; data: Float32Array; shape: number[]; order: 'out-in' }
  | { kind: 'float'; dtype: 'float16' | 'bfloat16'; data: Uint16Array; shape: number[]; order: 'out-in' };

/**
 * Block-quantized in MatMulNBits' layout: `numRows` (N) rows of `numCols` (K) unsigned codes in
 * blocks of `blockSize`; value = (code − zeroPoint) × scale. `zeroPoints` null means 2^(bits−1);
 * else packed like the codes (8 bits: one byte per block).
 */
export interface GgufBlockWeight {
  kind: 'blocks';
  bits: 4 | 8;
  blockSize: number;
  numRows: number;
  numCols: number;
  data: Uint8Array;
  scales: Float32Array;
  zeroPoints: Uint8Array | null;
}

/** One matrix as the writer takes it. */
export type GgufMatrixWeight = GgufFloatWeight | GgufBlockWeight;

/**
 * How faithfully a mapping keeps the file's values (said on the slot card): `exact`; `offset-rounded`
 * (affine blocks in 8 bits: each block's offset rounded to a fraction of a step); `requantized`.
 */
export type MappingFidelity = 'exact' | 'offset-rounded' | 'requantized';
