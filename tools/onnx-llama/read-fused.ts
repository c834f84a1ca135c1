// Reads the weight set back out of a fused graph written by the fused graph writer (its
// initializer names are fixed: model.layers.N.self_attn.qkv_proj.weight[.fp16] or .q4/.q8 with
// .scales/.zero_points, …), so `quantize` can start from a fused full-precision file.

import type { onnx as Onnx } from 'onnx-proto';
import type {
  BlockWeight,
  DecoderDims,
  DecoderLayerWeights,
  DecoderWeightSet,
  FloatWeight,
  MatrixWeight,
} from '../../src-main/runtime/model/fused-graph/weight-set';
import { numElements, tensorFloats } from './onnx-file';

type Initializers = Map<string, Onnx.ITensorProto>;

function rawBytes(tensor: Onnx.ITensorProto): Uint8Array {
  const raw = tensor.rawData ?? new Uint8Array(0);
  const copy = new Uint8Array(raw.length);
  copy.set(raw);
  return copy;
}

/** A float initializer (`name` or `name.fp16`) as a float32 weight in the order it was stored. */
function floatAt(init: Initializers, name: string, order: FloatWeight['order']): FloatWeight | null {
  const tensor = init.get(name) ?? init.get(`${name}.fp16`);
  if (!tensor) return null;
  const shape = (tensor.dims ?? []).map(Number);
  return { kind: 'float', dtype: 'float32', data: tensorFloats(tensor), shape, order };
}

/** A block initializer group (`base.q4|q8`, `.scales`, `.zero_points`) as a block weight. */
function blocksAt(init: Initializers, base: string, numCols: number): BlockWeight | null {
  for (const bits of [4, 8] as const) {
    const data = init.get(`${base}.q${bits}`);
    if (!data) continue;
    const numRows = Number(data.dims![0]);
    const scales = init.get(`${base}.scales`);
    if (!scales) throw new Error(`the graph has ${base}.q${bits} but no ${base}.scales`);
    const numBlocks = numElements(scales) / numRows;
    const zeroPoints = init.get(`${base}.zero_points`);
    return {
      kind: 'blocks',
      bits,
      // Bytes per row over blocks per row: one block's bytes, bits / 8 of its weights each.
      blockSize: (numElements(data) / numRows / numBlocks) * (8 / bits),
      numRows,
      numCols,
      data: rawBytes(data),
      scales: tensorFloats(scales),
      zeroPoints: zeroPoints ? rawBytes(zeroPoints) : null,
    };
  }
  return null;
}

/** One projection (`base` without suffix): float in-out, or blocks. */
function matrixAt(init: Initializers, base: string, numCols: number): MatrixWeight | null {
  return floatAt(init, `${base}.weight`, 'in-out') ?? blocksAt(init, base, numCols);
}

/** Rows [start, start + count) of a packed weight (out features), as its own weight. */
function rowsOf(weight: MatrixWeight, start: number, count: number): MatrixWeight {
  if (weight.kind === 'blocks') {
    const rowBytes = weight.data.length / weight.numRows;
    const rowScales = weight.scales.length / weight.numRows;
    const zpBytes = weight.zeroPoints ? weight.zeroPoints.length / weight.numRows : 0;
    return {
      ...weight,
      numRows: count,
      data: weight.data.slice(start * rowBytes, (start + count) * rowBytes),
      scales: weight.scales.slice(start * rowScales, (start + count) * rowScales),
      zeroPoints: weight.zeroPoints?.slice(start * zpBytes, (start + count) * zpBytes) ?? null,
    };
  }
  const [numIn, numOut] = weight.shape as [number, number];
  const data = new Float32Array(numIn * count);
  const source = weight.data as Float32Array;
  for (let row = 0; row < numIn; row++)
    data.set(source.subarray(row * numOut + start, row * numOut + start + count), row * count);
  return { ...weight, dtype: 'float32', data, shape: [numIn, count] };
}

/** A projection stored packed (`packedBase`) or apart (`bases`): each part by its row count. */
function partsAt(
  init: Initializers,
  packedBase: string,
  bases: string[],
  rows: number[],
  numCols: number,
): MatrixWeight[] {
  const packed = matrixAt(init, packedBase, numCols);
  if (!packed)
    return bases.map((base) => {
      const weight = matrixAt(init, base, numCols);
      if (!weight) throw new Error(`the graph has no weight ${base}`);
      return weight;
    });
  let start = 0;
  return rows.map((count) => {
    const part = rowsOf(packed, start, count);
    start += count;
    return part;
  });
}

function layerAt(init: Initializers, dims: DecoderDims, layer: number): DecoderLayerWeights {
  const at = (name: string) => `model.layers.${layer}.${name}`;
  const norm = (name: string) => {
    const weight = floatAt(init, at(`${name}.weight`), 'out-in');
    if (!weight) throw new Error(`the graph has no weight ${at(name)}`);
    return weight;
  };
  const { hiddenSize, intermediateSize, headDim } = dims;
  const qRows = dims.numHeads * headDim;
  const kvRows = dims.numKvHeads * headDim;
  const attn = (name: string) => at(`self_attn.${name}`);
  const [q, k, v] = partsAt(
    init,
    attn('qkv_proj'),
    ['q', 'k', 'v'].map((p) => attn(`${p}_proj`)),
    [qRows, kvRows, kvRows],
    hiddenSize,
  );
  const mlp = (name: string) => at(`mlp.${name}`);
  const [gate, up] = partsAt(
    init,
    mlp('gate_up_proj'),
    [mlp('gate_proj'), mlp('up_proj')],
    [intermediateSize, intermediateSize],
    hiddenSize,
  );
  const single = (base: string, numCols: number) => {
    const weight = matrixAt(init, base, numCols);
    if (!weight) throw new Error(`the graph has no weight ${base}`);
    return weight;
  };
  return {
    inputNorm: norm('input_layernorm'),
    q: q!,
    k: k!,
    v: v!,
    o: single(attn('o_proj'), qRows),
    postAttentionNorm: norm('post_attention_layernorm'),
    gate: gate!,
    up: up!,
    down: single(mlp('down_proj'), intermediateSize),
  };
}

/** The embedding: float [vocab, hidden] or blocks [vocab, hidden × bits / 8]. */
function embeddingAt(init: Initializers, dims: DecoderDims): MatrixWeight {
  const base = 'model.embed_tokens.weight';
  const weight = floatAt(init, base, 'out-in') ?? blocksAt(init, base, dims.hiddenSize);
  if (!weight) throw new Error(`the graph has no weight ${base}`);
  return weight;
}

/**
 * The weight set of a fused graph's initializers; `dims` come from the folder's config.json
 * (a graph whose head is written apart from a tied embedding reads back untied).
 */
export function readFusedWeightSet(model: Onnx.IModelProto, dims: DecoderDims): DecoderWeightSet {
  const init: Initializers = new Map((model.graph?.initializer ?? []).map((t) => [t.name!, t]));
  const lmHead = matrixAt(init, 'lm_head', dims.hiddenSize);
  const finalNorm = floatAt(init, 'model.norm.weight', 'out-in');
  if (!finalNorm) throw new Error('the graph has no weight model.norm.weight');
  return {
    dims: { ...dims, isTiedEmbedding: lmHead === null },
    embedding: embeddingAt(init, dims),
    layers: Array.from({ length: dims.numLayers }, (_, layer) => layerAt(init, dims, layer)),
    finalNorm,
    lmHead,
  };
}

/** Whether a decoded model is in the fused form (it runs GroupQueryAttention). */
export function isFusedModel(model: Onnx.IModelProto): boolean {
  return (model.graph?.node ?? []).some((n) => n.opType === 'GroupQueryAttention');
}
