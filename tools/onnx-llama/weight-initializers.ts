// Turns HF-layout weights into graph initializers: projections are stored
// transposed ([in, out]) so the graph does plain MatMul; matrices are stored in
// the chosen dtype (fp16 ones get one Cast to float32 each, folded by ORT at
// session creation); norm vectors always stay float32.

import { float32ToHalfInto } from '../../src-main/runtime/model/float16';
import type { GraphBuilder } from '../../src-main/runtime/model/fused-graph/graph-builder';
import { transposeInto } from '../../src-main/runtime/model/fused-graph/float-matrix';
import { ONNX_TYPE_CODE } from '../../src-main/runtime/model/fused-graph/graph-builder';
import { llamaDims, type LlamaConfig } from './config';
import type { LlamaWeights, NamedTensor } from './weights';

/** Storage dtype for weight matrices in the .onnx file. */
export type WeightDtype = 'float16' | 'float32';

/** Graph value names (float32) of one layer's weights; `*T` are transposed to [in, out]. */
export interface LayerWeightValues {
  inputNorm: string;
  qT: string;
  kT: string;
  vT: string;
  oT: string;
  postNorm: string;
  gateT: string;
  upT: string;
  downT: string;
}

/** Graph value names (float32) of all weights; `lmHead` is [V, H] (the embedding when tied). */
export interface WeightValues {
  embed: string;
  lmHead: string;
  finalNorm: string;
  layers: LayerWeightValues[];
}

/** Encodes a matrix's raw bytes in `dtype`, optionally transposed; no per-element JS objects. */
export function encodeMatrixBytes(
  tensor: NamedTensor,
  dtype: WeightDtype,
  isTransposed: boolean,
): Uint8Array {
  const { data } = tensor;
  let bits: Uint16Array | Uint32Array;
  if (dtype === 'float16') {
    bits = new Uint16Array(data.length);
    float32ToHalfInto(data, bits);
  } else {
    bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  }
  if (isTransposed) {
    const [numRows, numCols] = tensor.shape as [number, number];
    const transposed =
      bits instanceof Uint16Array ? new Uint16Array(bits.length) : new Uint32Array(bits.length);
    transposeInto(bits, transposed, numRows, numCols);
    bits = transposed;
  }
  return new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength);
}

function requireWeight(weights: LlamaWeights, name: string): NamedTensor {
  const tensor = weights.get(name);
  if (!tensor) throw new Error(`weight ${name} is missing`);
  return tensor;
}

/** Adds one matrix; returns its float32 graph value (after a Cast when stored as fp16). */
function addMatrix(
  builder: GraphBuilder,
  weights: LlamaWeights,
  name: string,
  dtype: WeightDtype,
  isTransposed: boolean,
): string {
  const tensor = requireWeight(weights, name);
  const valueName = isTransposed ? `${name}.transposed` : name;
  const dims = isTransposed ? [tensor.shape[1]!, tensor.shape[0]!] : tensor.shape;
  const bytes = encodeMatrixBytes(tensor, dtype, isTransposed);
  if (dtype === 'float32') return builder.addInitializer(valueName, 'float32', dims, bytes);
  const stored = builder.addInitializer(`${valueName}.fp16`, 'float16', dims, bytes);
  return builder.op('Cast', [stored], { to: ONNX_TYPE_CODE.float32 }, valueName);
}

function addVector(builder: GraphBuilder, weights: LlamaWeights, name: string): string {
  const { data, shape } = requireWeight(weights, name);
  return builder.addInitializer(
    name,
    'float32',
    shape,
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  );
}

/** Adds every weight the config needs as initializers; returns their float32 graph values. */
export function addLlamaWeights(
  builder: GraphBuilder,
  config: LlamaConfig,
  weights: LlamaWeights,
  dtype: WeightDtype,
): WeightValues {
  const dims = llamaDims(config);
  builder.scope = '/weights';
  const embed = addMatrix(builder, weights, 'model.embed_tokens.weight', dtype, false);
  const layers: LayerWeightValues[] = [];
  for (let layer = 0; layer < dims.numLayers; layer++) {
    const prefix = `model.layers.${layer}`;
    const projection = (name: string): string =>
      addMatrix(builder, weights, `${prefix}.${name}.weight`, dtype, true);
    layers.push({
      inputNorm: addVector(builder, weights, `${prefix}.input_layernorm.weight`),
      qT: projection('self_attn.q_proj'),
      kT: projection('self_attn.k_proj'),
      vT: projection('self_attn.v_proj'),
      oT: projection('self_attn.o_proj'),
      postNorm: addVector(builder, weights, `${prefix}.post_attention_layernorm.weight`),
      gateT: projection('mlp.gate_proj'),
      upT: projection('mlp.up_proj'),
      downT: projection('mlp.down_proj'),
    });
  }
  const finalNorm = addVector(builder, weights, 'model.norm.weight');
  const lmHead = dims.isTiedEmbedding ? embed : addMatrix(builder, weights, 'lm_head.weight', dtype, false);
  return { embed, lmHead, finalNorm, layers };
}
