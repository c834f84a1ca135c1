// What GroupQueryAttention takes as query, key and value: the q/k/v projections (packed into one
// when they can be), their biases added (Qwen2), and each query and key head RMS-normed before
// RoPE (Qwen3; GroupQueryAttention rotates inside, so the norm must come first and the packed
// output is split for it).

import type { GraphBuilder } from './graph-builder';
import { floatValues } from './float-matrix';
import { addPackedProjection, addProjection, canPack } from './projections';
import type { ProjectionOptions } from './projections';
import { addFloatVector } from './vectors';
import type { DecoderDims, DecoderLayerWeights, FloatWeight } from './weight-set';

/**
 * GroupQueryAttention's query, key and value inputs for one layer: [packed, '', ''] when one
 * packed projection feeds it, else the three apart. `prefix` is `model.layers.N.self_attn`.
 */
export function addAttentionInputs(
  builder: GraphBuilder,
  prefix: string,
  input: string,
  weights: DecoderLayerWeights,
  dims: DecoderDims,
  options: ProjectionOptions,
): [string, string, string] {
  const qkv = [weights.q, weights.k, weights.v];
  const bias = weights.qkvBias ?? null;
  const norm = weights.qkNorm ?? null;
  let parts: [string, string, string];
  if (canPack(qkv)) {
    let packed = addPackedProjection(builder, input, `${prefix}.qkv_proj`, qkv, options);
    if (bias) {
      const joined = joinVectors([bias.q, bias.k, bias.v]);
      packed = builder.op('Add', [packed, addFloatVector(builder, `${prefix}.qkv_proj.bias`, joined)]);
    }
    if (!norm) return [packed, '', ''];
    const qWidth = dims.numHeads * dims.headDim;
    const kvWidth = dims.numKvHeads * dims.headDim;
    const sizes = builder.addInt64Constant('qkv_sizes', [qWidth, kvWidth, kvWidth]);
    parts = builder.addNode('Split', [packed, sizes], { axis: -1 }, 3) as [string, string, string];
  } else {
    parts = (['q', 'k', 'v'] as const).map((part, i) => {
      const projected = addProjection(builder, input, `${prefix}.${part}_proj`, qkv[i]!, options);
      if (!bias) return projected;
      return builder.op('Add', [
        projected,
        addFloatVector(builder, `${prefix}.${part}_proj.bias`, bias[part]),
      ]);
    }) as [string, string, string];
  }
  if (!norm) return parts;
  return [
    addHeadNorm(builder, parts[0], `${prefix}.q_norm.weight`, norm.q, dims.numHeads, dims),
    addHeadNorm(builder, parts[1], `${prefix}.k_norm.weight`, norm.k, dims.numKvHeads, dims),
    parts[2],
  ];
}

/** RMSNorm over each head of `x` [batch, seq, numHeads × headDim], by one [headDim] weight. */
function addHeadNorm(
  builder: GraphBuilder,
  x: string,
  name: string,
  weight: FloatWeight,
  numHeads: number,
  dims: DecoderDims,
): string {
  const gamma = addFloatVector(builder, name, weight);
  const byHead = builder.addInt64Constant('by_head', [0, 0, numHeads, dims.headDim]);
  const heads = builder.op('Reshape', [x, byHead]);
  const normed = builder.op('SimplifiedLayerNormalization', [heads, gamma], {
    epsilon: { float: dims.rmsNormEps },
    axis: -1,
    stash_type: 1,
  });
  const flat = builder.addInt64Constant('flat', [0, 0, numHeads * dims.headDim]);
  return builder.op('Reshape', [normed, flat]);
}

/** Vectors end to end, as float32. */
function joinVectors(vectors: FloatWeight[]): FloatWeight {
  const values = vectors.map(floatValues);
  const data = new Float32Array(values.reduce((sum, v) => sum + v.length, 0));
  let offset = 0;
  for (const v of values) {
    data.set(v, offset);
    offset += v.length;
  }
  return { kind: 'float', dtype: 'float32', data, shape: [data.length], order: 'out-in' };
}
