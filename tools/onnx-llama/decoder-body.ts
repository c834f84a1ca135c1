// The decoder's computation (embedding → layers → final norm → logits) over named
// values, so the same body can fill a graph or one branch of a merged decoder's If:
// the names say where the past comes from, where present/logits go, and which of
// the optional inputs (position_ids, logits_to_keep) exist.

import type { LlamaDims } from './config';
import type { GraphBuilder } from '../../src-main/runtime/model/fused-graph/graph-builder';
import { ONNX_TYPE_CODE } from '../../src-main/runtime/model/fused-graph/graph-builder';
import {
  addDerivedPositionIds,
  addRmsNorm,
  addRotary,
  addSharedValues,
  type SharedValues,
} from './graph-shared';
import type { LayerWeightValues, WeightValues } from './weight-initializers';

/** Element type of K/V or logits at the graph boundary (compute is float32 inside). */
export type IoFloat = 'float32' | 'float16';

/** Where the body reads its inputs and writes its outputs. */
export interface BodyNames {
  /** The past K/V value of a layer (already float32 when `kvDtype` is float16: see `pastOf`). */
  past: (layer: number, kind: 'key' | 'value') => string;
  present: (layer: number, kind: 'key' | 'value') => string;
  logits: string;
  /** position_ids input, or null to derive positions from attention_mask. */
  positionIds: string | null;
  /** num_logits_to_keep / logits_to_keep input, or null to compute every position's logits. */
  logitsToKeep: string | null;
  kvDtype: IoFloat;
  logitsDtype: IoFloat;
  /** MatMul(hidden, Wᵀ) on [B, S, H] instead of Gemm on [B*S, H] (see GraphIo). */
  isMatMulHead: boolean;
}

/** Adds the whole decoder computation to `builder`. */
export function addDecoderBody(
  builder: GraphBuilder,
  dims: LlamaDims,
  weights: WeightValues,
  names: BodyNames,
): void {
  const pastOf = (layer: number, kind: 'key' | 'value') =>
    names.kvDtype === 'float16'
      ? builder.op('Cast', [names.past(layer, kind)], { to: ONNX_TYPE_CODE.float32 })
      : names.past(layer, kind);
  const firstPastKey = pastOf(0, 'key');
  const positionIds = names.positionIds ?? addDerivedPositionIds(builder);
  const shared = addSharedValues(builder, dims, firstPastKey, positionIds);
  builder.scope = '/embed';
  let hidden = builder.op('Gather', [weights.embed, 'input_ids'], { axis: 0 });
  weights.layers.forEach((layerWeights, layer) => {
    const past = (kind: 'key' | 'value') =>
      layer === 0 && kind === 'key' ? firstPastKey : pastOf(layer, kind);
    hidden = addLayer(builder, dims, hidden, layerWeights, { layer, past, names, shared });
  });
  builder.scope = '/final_norm';
  const normed = addRmsNorm(builder, hidden, weights.finalNorm, dims.rmsNormEps);
  addLogits(builder, dims, normed, weights.lmHead, names);
}

interface LayerContext {
  layer: number;
  past: (kind: 'key' | 'value') => string;
  names: BodyNames;
  shared: SharedValues;
}

/** Projects h to K or V and appends it to the past: [B, NKV, T, D], written to `present.L.kind`. */
function addPresent(
  builder: GraphBuilder,
  dims: LlamaDims,
  hidden: string,
  weightT: string,
  kind: 'key' | 'value',
  ctx: LayerContext,
): string {
  const splitHeads = builder.addInt64Constant('kv_shape', [0, 0, dims.numKvHeads, dims.headDim]);
  const projected = builder.op('Reshape', [builder.op('MatMul', [hidden, weightT]), splitHeads]);
  let perHead = builder.op('Transpose', [projected], { perm: [0, 2, 1, 3] });
  if (kind === 'key')
    perHead = addRotary(builder, perHead, ctx.shared.cosForKeys, ctx.shared.signedSinForKeys);
  const name = ctx.names.present(ctx.layer, kind);
  if (ctx.names.kvDtype === 'float32')
    return builder.op('Concat', [ctx.past(kind), perHead], { axis: 2 }, name);
  const joined = builder.op('Concat', [ctx.past(kind), perHead], { axis: 2 });
  builder.op('Cast', [joined], { to: ONNX_TYPE_CODE.float16 }, name);
  return joined;
}

/**
 * Grouped-query attention without copying K/V: queries as [B, NKV, G, S, D],
 * keys/values unsqueezed to [B, NKV, 1, T, D] so MatMul broadcasts over G.
 */
function addAttention(
  builder: GraphBuilder,
  dims: LlamaDims,
  hidden: string,
  weights: LayerWeightValues,
  ctx: LayerContext,
): string {
  const groupSize = dims.numHeads / dims.numKvHeads;
  const splitQueryHeads = builder.addInt64Constant('q_shape', [
    0,
    0,
    dims.numKvHeads,
    groupSize,
    dims.headDim,
  ]);
  const queries = builder.op('Reshape', [builder.op('MatMul', [hidden, weights.qT]), splitQueryHeads]);
  const queriesByGroup = builder.op('Transpose', [queries], { perm: [0, 2, 3, 1, 4] });
  const { shared } = ctx;
  const rotatedQueries = addRotary(builder, queriesByGroup, shared.cosForQueries, shared.signedSinForQueries);
  const keys = addPresent(builder, dims, hidden, weights.kT, 'key', ctx);
  const values = addPresent(builder, dims, hidden, weights.vT, 'value', ctx);
  const groupAxis = builder.addInt64Constant('axis2', [2]);
  const keysTransposed = builder.op('Unsqueeze', [
    builder.op('Transpose', [keys], { perm: [0, 1, 3, 2] }),
    groupAxis,
  ]);
  const rawScores = builder.op('MatMul', [rotatedQueries, keysTransposed]);
  const sqrtHeadDim = builder.addFloatConstant('sqrt_head_dim', [Math.sqrt(dims.headDim)], []);
  const scores = builder.op('Add', [builder.op('Div', [rawScores, sqrtHeadDim]), shared.attentionBias]);
  const probabilities = builder.op('Softmax', [scores], { axis: -1 });
  const context = builder.op('MatMul', [probabilities, builder.op('Unsqueeze', [values, groupAxis])]);
  const contextBySequence = builder.op('Transpose', [context], { perm: [0, 3, 1, 2, 4] });
  const mergeHeads = builder.addInt64Constant('merged_shape', [0, 0, dims.numHeads * dims.headDim]);
  return builder.op('MatMul', [builder.op('Reshape', [contextBySequence, mergeHeads]), weights.oT]);
}

/** SwiGLU MLP: (silu(h·Wgᵀ) * (h·Wuᵀ))·Wdᵀ with silu(x) = x * Sigmoid(x). */
function addMlp(builder: GraphBuilder, hidden: string, weights: LayerWeightValues): string {
  const gate = builder.op('MatMul', [hidden, weights.gateT]);
  const activated = builder.op('Mul', [gate, builder.op('Sigmoid', [gate])]);
  const up = builder.op('MatMul', [hidden, weights.upT]);
  return builder.op('MatMul', [builder.op('Mul', [activated, up]), weights.downT]);
}

function addLayer(
  builder: GraphBuilder,
  dims: LlamaDims,
  residual: string,
  weights: LayerWeightValues,
  ctx: LayerContext,
): string {
  builder.scope = `/layers.${ctx.layer}/attn`;
  const attentionInput = addRmsNorm(builder, residual, weights.inputNorm, dims.rmsNormEps);
  const afterAttention = builder.op('Add', [
    residual,
    addAttention(builder, dims, attentionInput, weights, ctx),
  ]);
  builder.scope = `/layers.${ctx.layer}/mlp`;
  const mlpInput = addRmsNorm(builder, afterAttention, weights.postNorm, dims.rmsNormEps);
  return builder.op('Add', [afterAttention, addMlp(builder, mlpInput, weights)]);
}

/**
 * logits = x·Wᵀ via Gemm(transB) on [B*S, H], so a tied embedding is stored and held once (or,
 * with `isMatMulHead`, MatMul by the transposed weight on [B, S, H], as Optimum exports it).
 * With logits_to_keep = k > 0 only the last k positions are computed (HF: 0 keeps all).
 */
function addLogits(
  builder: GraphBuilder,
  dims: LlamaDims,
  hidden: string,
  lmHead: string,
  names: BodyNames,
): void {
  builder.scope = '/lm_head';
  let kept = hidden;
  if (names.logitsToKeep) {
    const zero = builder.addInt64Constant('zero', [0], []);
    const hasLimit = builder.op('Greater', [names.logitsToKeep, zero]);
    const start = builder.op('Where', [hasLimit, builder.op('Neg', [names.logitsToKeep]), zero]);
    const starts = builder.op('Unsqueeze', [start, builder.addInt64Constant('axis0', [0])]);
    const end = builder.addInt64Constant('end', [Number.MAX_SAFE_INTEGER]);
    kept = builder.op('Slice', [hidden, starts, end, builder.addInt64Constant('axes', [1])]);
  }
  if (names.isMatMulHead) {
    const weightT = builder.op('Transpose', [lmHead], { perm: [1, 0] });
    writeLogits(builder, names, 'MatMul', [kept, weightT]);
    return;
  }
  const flat = builder.op('Reshape', [kept, builder.addInt64Constant('flat_shape', [-1, dims.hiddenSize])]);
  const flatLogits = builder.op('Gemm', [flat, lmHead], { transB: 1 });
  const vocab = builder.addInt64Constant('vocab', [dims.vocabSize]);
  const leading = builder.op('Shape', [kept], { start: 0, end: 2 });
  const logitsShape = builder.op('Concat', [leading, vocab], { axis: 0 });
  writeLogits(builder, names, 'Reshape', [flatLogits, logitsShape]);
}

/** The op that yields the logits: it writes `names.logits` itself at fp32, through a Cast at fp16. */
function writeLogits(builder: GraphBuilder, names: BodyNames, opType: string, inputs: string[]): void {
  if (names.logitsDtype === 'float32') {
    builder.op(opType, inputs, {}, names.logits);
    return;
  }
  builder.op('Cast', [builder.op(opType, inputs)], { to: ONNX_TYPE_CODE.float16 }, names.logits);
}
