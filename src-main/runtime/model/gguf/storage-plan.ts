// How each GGUF tensor will be stored in the converted graph, decided from the directory alone:
// matrices keep their blocks (MatMulNBits) where a mapping exists, float tensors stay float, and
// a type with neither is refused by name. The plan sizes the conversion and labels the slot card.

import { blockLayoutOf } from './to-matmul-blocks';
import { REQUANTIZED_EMBEDDING } from './gguf-weight-set';
import type { GgufSetTensor } from './gguf-files';
import type { MappingFidelity } from './weight-types';
import { GgufModelError } from './gguf-architecture';

/** Float types kept as they are (norms are always widened to float32). */
const FLOAT_TYPES = new Set(['F32', 'F16', 'BF16']);

/** The converted graph's weights: bytes per storage kind, fidelity, and counts. */
export interface StoragePlan {
  /**
   * Converted bytes per storage kind (`int4`, `int8`, `fp16`, `fp32`, `bf16`); a block matrix's
   * codes count as int4 / int8, its scale and min steps as int8 and their factors as fp16.
   */
  bytesByKind: Map<string, number>;
  /** The least faithful mapping any tensor gets (`exact` when every tensor keeps its values). */
  fidelity: MappingFidelity;
  /** ggml types in the file and how many tensors each (`Q4_K ×25, Q6_K ×4`). */
  typeCounts: Map<string, number>;
  numParams: number;
}

/** The plan for a tensor directory; throws GgufModelError naming a tensor whose type cannot convert. */
export function storagePlanOf(tensors: ReadonlyMap<string, GgufSetTensor>): StoragePlan {
  const bytesByKind = new Map<string, number>();
  const typeCounts = new Map<string, number>();
  const add = (kind: string, bytes: number) => bytesByKind.set(kind, (bytesByKind.get(kind) ?? 0) + bytes);
  let fidelity: MappingFidelity = 'exact';
  let numParams = 0;
  for (const tensor of tensors.values()) {
    const numValues = tensor.dims.reduce((a, b) => a * b, 1);
    numParams += numValues;
    const type = tensor.type.name;
    typeCounts.set(type, (typeCounts.get(type) ?? 0) + 1);
    if (tensor.dims.length === 1 || type === 'F32') {
      add('fp32', numValues * 4);
      continue;
    }
    if (FLOAT_TYPES.has(type)) {
      add(type === 'F16' ? 'fp16' : 'bf16', numValues * 2);
      continue;
    }
    const layout = blockLayoutOf(type);
    if (layout === null)
      throw new GgufModelError(`tensor ${tensor.name} is ${type}, which First Frame cannot convert yet`);
    // gguf-weight-set.ts re-quantizes an affine embedding: GatherBlockQuantized takes no offsets.
    const isRequantized = layout.hasOffsets && tensor.name === 'token_embd.weight';
    if (isRequantized) fidelity = 'requantized';
    const { bits, blockSize, hasOffsets, groupSize } = isRequantized ? REQUANTIZED_EMBEDDING : layout;
    add(bits === 4 ? 'int4' : 'int8', (numValues * bits) / 8);
    addScaleBytes(add, numValues / blockSize, groupSize, hasOffsets ? 2 : 1);
  }
  return { bytesByKind, fidelity, typeCounts, numParams };
}

/**
 * Bytes of `numBlocks` blocks' scales (and mins, `numKinds` 2) as block-scales.ts stores them:
 * factored (groupSize ≥ 1), an int8 step a block when groups hold several and a half-float
 * factor a group; float32 otherwise (groupSize 0: a re-quantized embedding).
 */
function addScaleBytes(
  add: (kind: string, bytes: number) => void,
  numBlocks: number,
  groupSize: number,
  numKinds: number,
): void {
  if (groupSize === 0) return add('fp32', numBlocks * 4 * numKinds);
  if (groupSize > 1) add('int8', numBlocks * numKinds);
  add('fp16', (numBlocks / groupSize) * 2 * numKinds);
}

/** The storage label the UI shows: kinds holding ≥ 10 % of the bytes, largest first (`int8 + int4`). */
export function storageLabelOf(plan: StoragePlan): string {
  const total = [...plan.bytesByKind.values()].reduce((a, b) => a + b, 0);
  return [...plan.bytesByKind]
    .filter(([, bytes]) => bytes >= total * 0.1)
    .sort((a, b) => b[1] - a[1])
    .map(([kind]) => kind)
    .join(' + ');
}
