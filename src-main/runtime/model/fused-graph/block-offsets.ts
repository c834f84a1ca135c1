// Block offsets: affine blocks (value = scale × code − min, GGUF's Q4_K, Q4_1, Q2_K, Q5_K, Q5_1)
// on MatMulNBits' fast path. ONNX Runtime 1.30's CPU MatMulNBits runs a float zero point through
// an unpacked path about 100× slower than with none, and uint8 zero points cannot hold min /
// scale; without zero points it computes scale × (code − z0) (z0 = 8 at 4 bits, 128 at 8). So a
// block's value is written as scale × (code − z0) + offset, offset = z0 × scale − min (codes
// shifted so their middle sits at z0, keeping the offset small), and
//   X · Wᵀ = MatMulNBits(X) + BlockSums(X) · Offsetsᵀ,
// BlockSums(X) being X summed over each block along K ([.., K / blockSize]). The sums are taken
// once per input and block size (q/k/v read one input, gate/up another); the correction is one
// small float MatMul and an Add per projection.

import type { GraphBuilder } from './graph-builder';
import { bytesOfBits } from './float-matrix';
import type { BlockWeight } from './weight-set';

/** Per builder: `input|blockSize` → the value holding that input's block sums. */
const sumsByBuilder = new WeakMap<GraphBuilder, Map<string, string>>();

/** Whether a block weight carries offsets that change any value (all-zero offsets need no correction). */
export function hasOffsets(weight: BlockWeight): weight is BlockWeight & { offsets: Float32Array } {
  return !!weight.offsets && weight.offsets.some((offset) => offset !== 0);
}

/** `input` [.., K] summed over each block of `blockSize` along K: [.., K / blockSize], added once. */
function addBlockSums(builder: GraphBuilder, input: string, numCols: number, blockSize: number): string {
  const cache = sumsByBuilder.get(builder) ?? new Map<string, string>();
  sumsByBuilder.set(builder, cache);
  const key = `${input}|${blockSize}`;
  const known = cache.get(key);
  if (known) return known;
  const byBlock = builder.addInt64Constant('by_block', [0, 0, numCols / blockSize, blockSize]);
  const blocks = builder.op('Reshape', [input, byBlock]);
  const lastAxis = builder.addInt64Constant('last_axis', [-1]);
  const sums = builder.op('ReduceSum', [blocks, lastAxis], { keepdims: 0 });
  cache.set(key, sums);
  return sums;
}

/**
 * `projected` (MatMulNBits of `input` by `weight`'s codes) plus the block offsets' share:
 * BlockSums(input) · offsetsᵀ, the offsets stored [K / blockSize, N] float32 as `${name}.offsets`.
 * The result is named `outputName` when given.
 */
export function addBlockOffsets(
  builder: GraphBuilder,
  input: string,
  projected: string,
  name: string,
  weight: BlockWeight & { offsets: Float32Array },
  outputName?: string,
): string {
  const { numRows, numCols, blockSize } = weight;
  const numBlocks = numCols / blockSize;
  const byColumn = new Float32Array(numBlocks * numRows);
  for (let row = 0; row < numRows; row++)
    for (let block = 0; block < numBlocks; block++)
      byColumn[block * numRows + row] = weight.offsets[row * numBlocks + block]!;
  const offsets = builder.addInitializer(
    `${name}.offsets`,
    'float32',
    [numBlocks, numRows],
    bytesOfBits(byColumn),
  );
  const sums = addBlockSums(builder, input, numCols, blockSize);
  const shift = builder.op('MatMul', [sums, offsets]);
  return builder.op('Add', [projected, shift], {}, outputName);
}
