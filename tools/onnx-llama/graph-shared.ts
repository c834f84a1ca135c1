// Per-forward values every layer shares: the additive attention mask (padding
// + causal) and the RoPE cos/sin tables, both computed inside the graph from
// attention_mask, position_ids and the past length. Plus RMSNorm and RoPE
// application, used by every layer.

import type { GraphBuilder } from '../../src-main/runtime/model/fused-graph/graph-builder';
import { ONNX_TYPE_CODE } from '../../src-main/runtime/model/fused-graph/graph-builder';
import type { LlamaDims } from './config';
import { ropeInverseFrequencies } from '../../src-main/runtime/model/rope';

/** Added to masked scores: finite (no NaN for fully masked rows) yet exp() underflows to 0. */
export const MASK_NEGATIVE = -3.4028234663852886e38 / 2;

/** Graph values shared by all layers of one forward pass. */
export interface SharedValues {
  /** float32 [B, 1, 1, S, T]: 0 where key j is visible to query i, MASK_NEGATIVE elsewhere. */
  attentionBias: string;
  /** float32 [B, 1, S, D] cos / sign-folded sin for keys ([B, NKV, S, D]). */
  cosForKeys: string;
  signedSinForKeys: string;
  /** float32 [B, 1, 1, S, D] cos / sign-folded sin for queries ([B, NKV, G, S, D]). */
  cosForQueries: string;
  signedSinForQueries: string;
}

/**
 * Additive mask [B,1,1,S,T]: key j is visible to query i iff attention_mask[b,j] == 1
 * and j <= pastLength + i. pastLength comes from the first layer's past key.
 */
function addAttentionBias(builder: GraphBuilder, firstPastKey: string): string {
  builder.scope = '/mask';
  const seqLength = builder.op('Shape', ['input_ids'], { start: 1, end: 2 });
  const pastLength = builder.op('Shape', [firstPastKey], { start: 2, end: 3 });
  const axisZero = builder.addInt64Constant('axis0', [0]);
  const pastScalar = builder.op('Squeeze', [pastLength, axisZero]);
  const totalScalar = builder.op('Squeeze', [builder.op('Add', [pastLength, seqLength]), axisZero]);
  const zero = builder.addInt64Constant('zero', [0], []);
  const one = builder.addInt64Constant('one', [1], []);
  const keyIndex = builder.op('Range', [zero, totalScalar, one]);
  const queryIndex = builder.op('Range', [pastScalar, totalScalar, one]);
  const queryColumn = builder.op('Unsqueeze', [queryIndex, builder.addInt64Constant('axis1', [1])]);
  const isCausalVisible = builder.op('LessOrEqual', [keyIndex, queryColumn]);
  const isKeyPresent = builder.op('Equal', ['attention_mask', one]);
  const isKeyPresent5d = builder.op('Unsqueeze', [
    isKeyPresent,
    builder.addInt64Constant('axes123', [1, 2, 3]),
  ]);
  const isVisible = builder.op('And', [isKeyPresent5d, isCausalVisible]);
  const visibleBias = builder.addFloatConstant('visible', [0], []);
  const maskedBias = builder.addFloatConstant('masked', [MASK_NEGATIVE], []);
  return builder.op('Where', [isVisible, visibleBias, maskedBias]);
}

/**
 * RoPE tables from position_ids: cos = Cos(concat(f, f)), signedSin = concat(-Sin(f), Sin(f))
 * with f = position * invFreq, so rotate_half(x)*sin == swapHalves(x)*signedSin exactly.
 */
function addRopeTables(
  builder: GraphBuilder,
  dims: LlamaDims,
  positionIds: string,
): Omit<SharedValues, 'attentionBias'> {
  builder.scope = '/rope';
  const positions = builder.op('Cast', [positionIds], { to: ONNX_TYPE_CODE.float32 });
  const positionColumn = builder.op('Unsqueeze', [positions, builder.addInt64Constant('axis2', [2])]);
  const inverseFrequencies = builder.addFloatConstant(
    'inv_freq',
    ropeInverseFrequencies(dims.headDim, dims.ropeTheta),
  );
  const frequencies = builder.op('Mul', [positionColumn, inverseFrequencies]);
  const cosHalf = builder.op('Cos', [frequencies]);
  const sinHalf = builder.op('Sin', [frequencies]);
  const cos = builder.op('Concat', [cosHalf, cosHalf], { axis: -1 });
  const signedSin = builder.op('Concat', [builder.op('Neg', [sinHalf]), sinHalf], { axis: -1 });
  const headAxis = builder.addInt64Constant('axis1', [1]);
  const headAndGroupAxes = builder.addInt64Constant('axes12', [1, 2]);
  return {
    cosForKeys: builder.op('Unsqueeze', [cos, headAxis]),
    signedSinForKeys: builder.op('Unsqueeze', [signedSin, headAxis]),
    cosForQueries: builder.op('Unsqueeze', [cos, headAndGroupAxes]),
    signedSinForQueries: builder.op('Unsqueeze', [signedSin, headAndGroupAxes]),
  };
}

/** Adds the mask and RoPE tables once per forward pass; `positionIds` is [B, S] int64. */
export function addSharedValues(
  builder: GraphBuilder,
  dims: LlamaDims,
  firstPastKey: string,
  positionIds: string,
): SharedValues {
  const attentionBias = addAttentionBias(builder, firstPastKey);
  return { attentionBias, ...addRopeTables(builder, dims, positionIds) };
}

/**
 * Positions for graphs without a position_ids input: cumsum(attention_mask) − 1 over all columns,
 * last S columns kept (a left-padded row counts only its real tokens, as position_ids would).
 */
export function addDerivedPositionIds(builder: GraphBuilder): string {
  builder.scope = '/positions';
  const one = builder.addInt64Constant('one', [1], []);
  const counted = builder.op('CumSum', ['attention_mask', builder.addInt64Constant('axis', [1], [])]);
  const positions = builder.op('Sub', [counted, one]);
  const seqLength = builder.op('Shape', ['input_ids'], { start: 1, end: 2 });
  const end = builder.addInt64Constant('end', [Number.MAX_SAFE_INTEGER]);
  return builder.op('Slice', [
    positions,
    builder.op('Neg', [seqLength]),
    end,
    builder.addInt64Constant('axes', [1]),
  ]);
}

/** RMSNorm as HF writes it: x / sqrt(mean(x², -1) + eps) * weight (the pattern ORT fuses). */
export function addRmsNorm(builder: GraphBuilder, input: string, weight: string, eps: number): string {
  const two = builder.addFloatConstant('two', [2], []);
  const epsilon = builder.addFloatConstant('eps', [eps], []);
  const meanSquare = builder.op('ReduceMean', [builder.op('Pow', [input, two])], { axes: [-1], keepdims: 1 });
  const rootMeanSquare = builder.op('Sqrt', [builder.op('Add', [meanSquare, epsilon])]);
  return builder.op('Mul', [builder.op('Div', [input, rootMeanSquare]), weight]);
}

/** q*cos + rotate_half(q)*sin, written as x*cos + swapHalves(x)*signedSin (last axis = head_dim). */
export function addRotary(builder: GraphBuilder, input: string, cos: string, signedSin: string): string {
  const [firstHalf, secondHalf] = builder.addNode('Split', [input], { axis: -1 }, 2) as [string, string];
  const swapped = builder.op('Concat', [secondHalf, firstHalf], { axis: -1 });
  return builder.op('Add', [builder.op('Mul', [input, cos]), builder.op('Mul', [swapped, signedSin])]);
}
