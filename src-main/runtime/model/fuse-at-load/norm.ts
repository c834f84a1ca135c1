import { floatAttribute, intAttribute, intsAttribute } from '../onnx-graph/graph-view';
import type { NodeView } from '../onnx-graph/graph-view';
import type { FloatWeight } from '../fused-graph/weight-set';
import { expectFor, FusionRefused } from './refusal';
import { normWeightAt } from './weights';
import { describeProducer, normalDomain } from './walker';
import type { Walker } from './walker';

/**
 * The residual stream a norm reads: one value, or the sum of two that a
 * SkipSimplifiedLayerNormalization adds itself (its fourth output, when written, holds the sum).
 */
export type StreamRef = { value: string } | { parts: [string, string]; sum: string | null };

/** An RMSNorm: its weight, epsilon and the stream it normalizes. */
export interface NormMatch {
  gamma: FloatWeight;
  eps: number;
  stream: StreamRef;
}

const LAYER_NORMS = new Set(['LayerNormalization', 'SkipLayerNormalization', 'EmbedLayerNormalization']);
const LAYER_NORM_WHY = 'it is a LayerNorm (subtracts the mean, adds a bias), not an RMSNorm';

/**
 * The RMSNorm writing `normed`: SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization,
 * or `x / sqrt(mean(x²) + eps) * weight` as exporters decompose it (Pow or Mul for the square,
 * Div or Mul by Reciprocal, float Casts anywhere). Refuses anything else naming what it found.
 */
export function matchNorm(walker: Walker, normed: string, part: string): NormMatch {
  const node = walker.producer(normed);
  expectFor(part, node !== null, () => `expected an RMSNorm, found ${describeProducer(walker, normed)}`);
  if (LAYER_NORMS.has(node.opType)) throw new FusionRefused(part, LAYER_NORM_WHY);
  if (node.opType === 'SimplifiedLayerNormalization') {
    expectFor(part, intAttribute(node, 'axis', -1) === -1, 'it does not normalize the last axis');
    const eps = floatAttribute(node, 'epsilon', 1e-5);
    return { gamma: normWeightAt(walker, node.inputs[1]!, part), eps, stream: { value: node.inputs[0]! } };
  }
  if (node.opType === 'SkipSimplifiedLayerNormalization' && normalDomain(node.domain) === 'com.microsoft') {
    expectFor(part, node.outputs[0] === walker.skip(normed), 'its normalized output is not the one read');
    expectFor(part, !node.inputs[3], 'it adds a bias');
    const [input = '', skip = '', gamma = ''] = node.inputs;
    const eps = floatAttribute(node, 'epsilon', 1e-5);
    const stream: StreamRef = { parts: [input, skip], sum: node.outputs[3] || null };
    return { gamma: normWeightAt(walker, gamma, part), eps, stream };
  }
  if (node.opType === 'Add' && node.inputs.some((input) => walker.constant(input)))
    throw new FusionRefused(part, 'it adds a bias after normalizing (LayerNorm-style)');
  expectFor(part, node.opType === 'Mul', () => `expected an RMSNorm, found ${node.opType}`);
  return decomposed(walker, node, part);
}

/** `normalized * weight` with normalized = x / sqrt(mean(x²) + eps) (either operand order). */
function decomposed(walker: Walker, mul: NodeView, part: string): NormMatch {
  const [a = '', b = ''] = mul.inputs;
  const isWeight = (name: string) =>
    walker.constant(name) !== null || walker.producerIs(name, 'Add') !== null;
  const [weightName, normalizedName] = isWeight(b) && !isWeight(a) ? [b, a] : [a, b];
  const gamma = normWeightAt(walker, weightName, part);
  const { x, rms } = normalizedOf(walker, normalizedName, part);
  const sqrt = walker.producerIs(rms, 'Sqrt');
  expectFor(
    part,
    sqrt !== null,
    () => `expected sqrt(mean(x²) + eps), found ${describeProducer(walker, rms)}`,
  );
  const add = walker.producerIs(sqrt.inputs[0]!, 'Add');
  expectFor(part, add !== null, 'it adds no epsilon before the square root');
  const epsIndex = add.inputs.findIndex((input) => walker.scalar(input) !== null);
  expectFor(part, epsIndex >= 0, 'its epsilon is not a constant');
  const eps = walker.scalar(add.inputs[epsIndex]!)!;
  const mean = walker.producerIs(add.inputs[1 - epsIndex]!, 'ReduceMean');
  expectFor(part, mean !== null, 'it does not take the mean of the squares');
  const axes = intsAttribute(mean, 'axes') ?? walker.ints(mean.inputs[1] ?? '');
  expectFor(part, axes?.length === 1 && axes[0] === -1, 'its mean is not over the last axis');
  expectFor(part, intAttribute(mean, 'keepdims', 1) === 1, 'its mean drops the reduced axis');
  const squared = walker.producer(mean.inputs[0]!);
  const isSquare =
    (squared?.opType === 'Pow' && walker.scalar(squared.inputs[1]!) === 2) ||
    (squared?.opType === 'Mul' && walker.same(squared.inputs[0]!, squared.inputs[1]!));
  expectFor(
    part,
    isSquare && walker.same(squared.inputs[0]!, x),
    'it does not average the squares of its input',
  );
  if (walker.producerIs(x, 'Sub')) throw new FusionRefused(part, LAYER_NORM_WHY);
  return { gamma, eps, stream: { value: x } };
}

/** x and the root mean square it is divided by: Div(x, rms), or Mul by Reciprocal(rms) or by 1 / rms. */
function normalizedOf(walker: Walker, name: string, part: string): { x: string; rms: string } {
  const node = walker.producer(name);
  if (node?.opType === 'Div') return { x: node.inputs[0]!, rms: node.inputs[1]! };
  expectFor(
    part,
    node?.opType === 'Mul',
    () => `expected x / rms(x), found ${describeProducer(walker, name)}`,
  );
  for (const [x, other] of [node.inputs, [...node.inputs].reverse()] as Array<[string, string]>) {
    const reciprocal = walker.producerIs(other, 'Reciprocal');
    if (reciprocal) return { x, rms: reciprocal.inputs[0]! };
    const division = walker.producerIs(other, 'Div');
    if (division && walker.scalar(division.inputs[0]!) === 1) return { x, rms: division.inputs[1]! };
  }
  throw new FusionRefused(part, 'it does not divide its input by a root mean square');
}
