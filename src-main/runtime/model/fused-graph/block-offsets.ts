// Block offsets: affine blocks (value = scale × code − min, GGUF's Q4_K, Q4_1, Q2_K, Q5_K, Q5_1)
// on MatMulNBits' fast path. ONNX Runtime 1.30's CPU MatMulNBits runs a float zero point through
// an unpacked path about 100× slower than with none, and uint8 zero points cannot hold min /
// scale; without zero points it computes scale × (code − z0) (z0 = 8 at 4 bits, 128 at 8). So a
// block's codes q (0…top) are stored as q + z0 − m, m = (top + 1) / 2 their middle, and its value
// is scale × (stored − z0) + offset with offset = m × scale − min (small: min is near m × scale
// in a block that straddles zero), and
//   X · Wᵀ = MatMulNBits(X) + BlockSums(X) · Offsetsᵀ,
// BlockSums(X) being X summed over each block along K ([.., K / blockSize]). The sums are taken
// once per input and block size (q/k/v read one input, gate/up another); the correction is one
// small float MatMul and an Add per projection. A matrix whose offsets are all zero (symmetric
// types) gets no correction at all.

import type { GraphBuilder } from './graph-builder';
import { addBlockOffsetsMatrix } from './block-scales';
import type { BlockWeight } from './weight-set';

/** Per builder: `input|blockSize` → the value holding that input's block means. */
const meansByBuilder = new WeakMap<GraphBuilder, Map<string, string>>();

/** Whether a block weight carries offsets that change any value (all-zero offsets need no correction). */
export function hasOffsets(weight: BlockWeight): weight is BlockWeight & { offsets: Float32Array } {
  return !!weight.offsets && weight.offsets.some((offset) => offset !== 0);
}

/**
 * `input` [batch, tokens, K] averaged over each block of `blockSize` along K: [batch, tokens,
 * K / blockSize], added once per input and block size. One AveragePool (a 1-D pool over the last
 * axis) rather than Reshape + ReduceSum: one node fewer, and 0.2 ms a token less on the bundled
 * model; the mean is the sum over a power of two, so scaling the offsets by blockSize is exact.
 */
function addBlockMeans(builder: GraphBuilder, input: string, blockSize: number): string {
  const cache = meansByBuilder.get(builder) ?? new Map<string, string>();
  meansByBuilder.set(builder, cache);
  const key = `${input}|${blockSize}`;
  const known = cache.get(key);
  if (known) return known;
  const means = builder.op('AveragePool', [input], { kernel_shape: [blockSize], strides: [blockSize] });
  cache.set(key, means);
  return means;
}

/**
 * `projected` (MatMulNBits of `input` by `weight`'s codes) plus the block offsets' share:
 * BlockMeans(input) · (blockSize × offsets)ᵀ = BlockSums(input) · offsetsᵀ, the offsets [K /
 * blockSize, N] float32 (block-scales.ts). The result is named `outputName` when given.
 */
export function addBlockOffsets(
  builder: GraphBuilder,
  input: string,
  projected: string,
  name: string,
  weight: BlockWeight & { offsets: Float32Array },
  outputName?: string,
): string {
  const offsets = addBlockOffsetsMatrix(builder, name, weight);
  const means = addBlockMeans(builder, input, weight.blockSize);
  const shift = builder.op('MatMul', [means, offsets]);
  return builder.op('Add', [projected, shift], {}, outputName);
}
