// What a GGUF tensor becomes for the fused graph writer: the writer's own weight types
// (model/fused-graph/weight-set.ts), so a converted GGUF feeds writeFusedDecoder as it is.

import type { BlockWeight, FloatWeight, MatrixWeight } from '../fused-graph/weight-set';

/** A float tensor as stored (fp32, or half / bfloat16 bits), row-major [out, in]. */
export type GgufFloatWeight = FloatWeight;

/** Block-quantized in MatMulNBits' layout (see BlockWeight). */
export type GgufBlockWeight = BlockWeight;

/** One matrix as the writer takes it. */
export type GgufMatrixWeight = MatrixWeight;

/**
 * How faithfully a mapping keeps the file's values (said on the slot card): `exact` (every value
 * as ggml decodes it); `requantized` (an affine token embedding, which the graph's
 * GatherBlockQuantized cannot read, re-quantized to symmetric 8-bit blocks: within half a step).
 */
export type MappingFidelity = 'exact' | 'requantized';
