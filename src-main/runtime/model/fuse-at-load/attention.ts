import { floatAttribute, intAttribute } from '../onnx-graph/graph-view';
import type { NodeView } from '../onnx-graph/graph-view';
import { expectFor, FusionRefused } from './refusal';
import { matchRotary } from './rotary';
import type { Angles } from './rotary';
import { requireProjection } from './weights';
import type { Projection } from './weights';
import { describeProducer, LAYOUT_OPS, normalDomain } from './walker';
import type { Walker } from './walker';
import { GRAPH_IO, pastOf } from '../graph-io-names';

/** Graph inputs besides the past a rotary's positions and an attention mask may be computed from. */
const POSITION_INPUTS: ReadonlySet<string> = new Set([
  GRAPH_IO.positionIds,
  GRAPH_IO.attentionMask,
  GRAPH_IO.inputIds,
]);
const isPositionSource = (name: string) => POSITION_INPUTS.has(name) || pastOf(name) !== null;
/** Contrib attention ops: a graph with them was fused by someone else's tool. */
const CONTRIB_ATTENTION = new Set([
  'Attention',
  'MultiHeadAttention',
  'GroupQueryAttention',
  'PackedAttention',
]);

/**
 * One layer's attention: its projections (q, k and v with their biases when the graph adds them,
 * as Qwen2 does), the rotary's angles, and the layer its past says it is.
 */
export interface AttentionMatch {
  layer: number;
  q: Projection;
  k: Projection;
  v: Projection;
  o: Projection;
  angles: Angles;
  /** The concatenated K and V (what `present.N.key|value` must hold). */
  presentKey: string;
  presentValue: string;
}

/**
 * The attention block writing `output` (the output projection's result): softmax(q·kᵀ × scale +
 * mask)·v over the past concatenated with the new keys and values, keys and queries rotated, K/V
 * heads shared by groups of query heads through broadcasting or repeat_kv (Expand/Reshape).
 */
export function matchAttention(
  walker: Walker,
  output: string,
  headDim: number,
  part: string,
): AttentionMatch {
  const o = requireProjection(walker, output, `${part}.o_proj`);
  const context = walker.producer(o.input, LAYOUT_OPS);
  if (context && CONTRIB_ATTENTION.has(context.opType))
    throw new FusionRefused(part, `it is already ONNX Runtime's ${context.opType}`);
  expectFor(
    part,
    context !== null && isPlainProduct(context, 1),
    () => `expected softmax(scores)·v, found ${describeProducer(walker, o.input)}`,
  );
  const softmax = walker.producerIs(context.inputs[0]!, 'Softmax');
  expectFor(
    part,
    softmax !== null,
    `expected softmax(scores)·v, found ${describeProducer(walker, context.inputs[0]!)}`,
  );
  expectFor(part, intAttribute(softmax, 'axis', -1) === -1, 'its softmax is not over the last axis');
  const scores = scoresOf(walker, softmax.inputs[0]!, part);
  const query = scaledSide(walker, scores.matmul.inputs[0]!);
  const key = scaledSide(walker, scores.matmul.inputs[1]!);
  const scale = scores.scale * query.scale * key.scale;
  const expected = 1 / Math.sqrt(headDim);
  expectFor(
    part,
    Math.abs(scale - expected) <= 1e-5 * expected,
    `its scores are scaled by ${scale}, not 1/√${headDim}`,
  );
  const keys = pastConcat(walker, key.value, 'key', part);
  const values = pastConcat(walker, context.inputs[1]!, 'value', part);
  expectFor(
    part,
    keys.layer === values.layer,
    `its keys are layer ${keys.layer}'s past and its values layer ${values.layer}'s`,
  );
  const q = rotated(walker, query.value, headDim, `${part}.q_proj`);
  const k = rotated(walker, keys.fresh, headDim, `${part}.k_proj`);
  const v = requireProjection(walker, walker.skip(values.fresh, LAYOUT_OPS), `${part}.v_proj`, true);
  expectFor(
    part,
    walker.same(q.projection.input, k.projection.input) && walker.same(q.projection.input, v.input),
    'its q, k and v do not read the same normalized input',
  );
  const positionsOk = [...walker.inputsOf(q.positions), ...walker.inputsOf(k.positions)].every((n) =>
    isPositionSource(n),
  );
  expectFor(
    part,
    positionsOk,
    'its rotary positions are computed from something other than position_ids or attention_mask',
  );
  const angles = q.angles;
  return {
    layer: keys.layer,
    q: q.projection,
    k: k.projection,
    v,
    o,
    angles,
    presentKey: keys.concat,
    presentValue: values.concat,
  };
}

/** The scores MatMul under Div/Mul by constants and an additive (or Where) mask; the product of the scales. */
function scoresOf(walker: Walker, name: string, part: string): { matmul: NodeView; scale: number } {
  let scale = 1;
  for (let node = walker.producer(name); node;) {
    if (node.opType === 'MatMul') return { matmul: node, scale };
    if (isFusedMatMul(node) && intAttribute(node, 'transA', 0) === 0)
      return { matmul: node, scale: scale * floatAttribute(node, 'alpha', 1) };
    const [a = '', b = '', c = ''] = node.inputs;
    let next: string | null = null;
    if (node.opType === 'Div' && walker.scalar(b) !== null) [next, scale] = [a, scale / walker.scalar(b)!];
    else if (node.opType === 'Mul') {
      const at = [a, b].findIndex((input) => walker.scalar(input) !== null);
      if (at >= 0) [next, scale] = [[a, b][1 - at]!, scale * walker.scalar([a, b][at]!)!];
    } else if (node.opType === 'Add') next = maskedSide(walker, a, b, part);
    else if (node.opType === 'Where' && walker.dependsOnProjection(b) && !walker.dependsOnProjection(c)) {
      checkMask(walker, a, part);
      next = b;
    }
    expectFor(
      part,
      next !== null,
      `its scores go through ${node.opType}, which the fused attention does not do (soft-capping, a bias?)`,
    );
    node = walker.producer(next);
  }
  throw new FusionRefused(part, 'its scores are not a MatMul of queries and keys');
}

/** Of an Add's operands, the scores (computed through projections); the other must be a mask. */
function maskedSide(walker: Walker, a: string, b: string, part: string): string {
  const [scores, mask] = walker.dependsOnProjection(a) ? [a, b] : [b, a];
  expectFor(
    part,
    walker.dependsOnProjection(scores) && !walker.dependsOnProjection(mask),
    'it adds two computed score terms',
  );
  checkMask(walker, mask, part);
  return scores;
}

/** A mask from attention_mask and shapes only: no learned bias (ALiBi), no table. */
function checkMask(walker: Walker, mask: string, part: string): void {
  expectFor(
    part,
    !walker.readsFloatTable(mask),
    'its scores add a bias table (ALiBi or learned), not only a mask',
  );
  const sources = [...walker.inputsOf(mask)];
  expectFor(
    part,
    sources.every((n) => isPositionSource(n)),
    () => `its mask reads ${sources.find((n) => !isPositionSource(n))}`,
  );
}

/** A query or key operand under layout ops and Mul/Div by constants (split scaling); the scale. */
function scaledSide(walker: Walker, name: string): { value: string; scale: number } {
  let scale = 1;
  let value = walker.skip(name, LAYOUT_OPS);
  for (let node = walker.producer(value); node; node = walker.producer(value)) {
    const [a = '', b = ''] = node.inputs;
    if (node.opType === 'Div' && walker.scalar(b) !== null) [value, scale] = [a, scale / walker.scalar(b)!];
    else if (node.opType === 'Mul' && walker.scalar(b) !== null)
      [value, scale] = [a, scale * walker.scalar(b)!];
    else if (node.opType === 'Mul' && walker.scalar(a) !== null)
      [value, scale] = [b, scale * walker.scalar(a)!];
    else break;
    value = walker.skip(value, LAYOUT_OPS);
  }
  return { value, scale };
}

/** Concat(past, new) along the sequence axis; the layer its past input names. */
function pastConcat(walker: Walker, name: string, kind: 'key' | 'value', part: string) {
  const concat = walker.producerIs(name, 'Concat', LAYOUT_OPS);
  expectFor(
    part,
    concat !== null && concat.inputs.length === 2,
    () =>
      `its ${kind}s are not the past concatenated with the new ones (found ${describeProducer(walker, walker.skip(name, LAYOUT_OPS))})`,
  );
  const past = pastOf(walker.skip(concat.inputs[0]!));
  expectFor(
    part,
    past !== null && past.kind === kind,
    `its ${kind}s do not start with a past_key_values input`,
  );
  expectFor(
    part,
    [2, -2].includes(intAttribute(concat, 'axis', 0)),
    `its ${kind}s are not concatenated along the sequence axis`,
  );
  return { layer: past.layer, fresh: concat.inputs[1]!, concat: concat.outputs[0]! };
}

/** A rotated projection: the rotary's match and the projection it rotates. */
function rotated(walker: Walker, name: string, headDim: number, part: string) {
  const rotary = matchRotary(walker, walker.skip(name, LAYOUT_OPS), headDim, part);
  const projection = requireProjection(walker, walker.skip(rotary.input, LAYOUT_OPS), part, true);
  return { projection, angles: rotary.angles, positions: rotary.positions };
}

/** ONNX Runtime's FusedMatMul (a MatMul with a scale and transposes folded in, as its optimizer writes). */
function isFusedMatMul(node: NodeView): boolean {
  return node.opType === 'FusedMatMul' && normalDomain(node.domain) === 'com.microsoft';
}

/** A MatMul, or a FusedMatMul that transposes neither operand and scales by `alpha`. */
function isPlainProduct(node: NodeView, alpha: number): boolean {
  if (node.opType === 'MatMul' && normalDomain(node.domain) === '') return true;
  return (
    isFusedMatMul(node) &&
    intAttribute(node, 'transA', 0) === 0 &&
    intAttribute(node, 'transB', 0) === 0 &&
    floatAttribute(node, 'alpha', 1) === alpha
  );
}

/** Whether `node` is a contrib attention op (a graph someone already fused). */
export function isContribAttention(node: Pick<NodeView, 'opType' | 'domain'>): boolean {
  return normalDomain(node.domain) === 'com.microsoft' && CONTRIB_ATTENTION.has(node.opType);
}
