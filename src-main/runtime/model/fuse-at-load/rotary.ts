import { floatAttribute, intAttribute } from '../onnx-graph/graph-view';
import type { NodeView } from '../onnx-graph/graph-view';
import { expectFor, FusionRefused } from './refusal';
import { describeProducer, LAYOUT_OPS, normalDomain } from './walker';
import type { Walker } from './walker';

/**
 * Where a rotary embedding's angles come from: position × inverse frequencies computed in the
 * graph, or cos/sin tables indexed by position ([positions, headDim / 2] each).
 */
export type Angles =
  | { kind: 'frequencies'; inverse: Float32Array }
  | { kind: 'tables'; cos: Float32Array; sin: Float32Array; numPositions: number };

/** A rotary embedding: the value it rotates, its angles, and the positions it reads. */
export interface RotaryMatch {
  input: string;
  angles: Angles;
  positions: string;
}

/**
 * The rotary embedding writing `rotated` (rotate-half, over the whole head): the RotaryEmbedding
 * contrib op, or `x·cos + rotate_half(x)·sin` as exporters write it, with rotate_half either
 * `concat(−x2, x1)` against sin or `concat(x2, x1)` against `concat(−sin, sin)`, the halves cut
 * by Split or Slice. Refuses interleaved, partial or scaled rotary with the reason.
 */
export function matchRotary(walker: Walker, rotated: string, headDim: number, part: string): RotaryMatch {
  const node = walker.producer(rotated);
  if (node?.opType === 'RotaryEmbedding' && normalDomain(node.domain) === 'com.microsoft')
    return contribRotary(walker, node, headDim, part);
  expectFor(
    part,
    node?.opType === 'Add',
    () => `expected rotary (x·cos + rotate_half(x)·sin), found ${describeProducer(walker, rotated)}`,
  );
  for (const [first, second] of [node.inputs, [...node.inputs].reverse()] as Array<[string, string]>) {
    const match = addForm(walker, first, second, headDim, part);
    if (match) return match;
  }
  throw new FusionRefused(
    part,
    'its rotary is not x·cos + rotate_half(x)·sin over the whole head (partial or interleaved rotary)',
  );
}

function contribRotary(walker: Walker, node: NodeView, headDim: number, part: string): RotaryMatch {
  expectFor(part, intAttribute(node, 'interleaved', 0) === 0, 'its RotaryEmbedding is interleaved');
  const rotaryDim = intAttribute(node, 'rotary_embedding_dim', 0);
  expectFor(
    part,
    rotaryDim === 0 || rotaryDim === headDim,
    `it rotates ${rotaryDim} of ${headDim} dims (partial rotary)`,
  );
  expectFor(part, floatAttribute(node, 'scale', 1) === 1, 'its RotaryEmbedding scales the angles');
  const [input = '', positions = '', cosName = '', sinName = ''] = node.inputs;
  const cos = walker.floats(cosName);
  const sin = walker.floats(sinName);
  expectFor(
    part,
    cos !== null && sin !== null && cos.length === sin.length,
    'its cos/sin caches are not constants',
  );
  const numPositions = cos.length / (headDim / 2);
  expectFor(part, Number.isInteger(numPositions), `its cos cache is not [positions, ${headDim / 2}]`);
  return { input, positions, angles: { kind: 'tables', cos, sin, numPositions } };
}

/** `Mul(x, cos) + Mul(rotate_half(x), sin)` with `first` the x·cos product; null when it is not. */
function addForm(
  walker: Walker,
  first: string,
  second: string,
  headDim: number,
  part: string,
): RotaryMatch | null {
  const cosMul = walker.producerIs(first, 'Mul');
  const sinMul = walker.producerIs(second, 'Mul');
  if (!cosMul || !sinMul) return null;
  for (const [swappedName, sinName] of [sinMul.inputs, [...sinMul.inputs].reverse()] as Array<
    [string, string]
  >) {
    const halves = swappedHalves(walker, swappedName, headDim);
    if (!halves) continue;
    const xIndex = cosMul.inputs.findIndex((input) => walker.same(input, halves.source));
    if (xIndex < 0) continue;
    const cos = anglesOf(walker, cosMul.inputs[1 - xIndex]!, 'Cos', false, headDim, part);
    const sin = anglesOf(walker, sinName, 'Sin', !halves.isNegated, headDim, part);
    const angles = mergedAngles(cos.angles, sin.angles);
    expectFor(part, angles !== null, 'its cos and sin come from different angles');
    expectFor(part, walker.same(cos.positions, sin.positions), 'its cos and sin read different positions');
    return { input: cosMul.inputs[xIndex]!, angles, positions: cos.positions };
  }
  return null;
}

/** `concat(x2, x1)` or `concat(−x2, x1)` of one value's halves along its last axis. */
function swappedHalves(
  walker: Walker,
  name: string,
  headDim: number,
): { source: string; isNegated: boolean } | null {
  const concat = walker.producerIs(name, 'Concat');
  if (!concat || concat.inputs.length !== 2) return null;
  const [concatUpper = '', lower = ''] = concat.inputs;
  let upper = concatUpper;
  const neg = walker.producerIs(upper, 'Neg');
  if (neg) upper = neg.inputs[0]!;
  const second = halfOf(walker, upper, headDim);
  const first = halfOf(walker, lower, headDim);
  if (!first || !second || first.which !== 'first' || second.which !== 'second') return null;
  return walker.same(first.source, second.source) ? { source: first.source, isNegated: neg !== null } : null;
}

/** Which half along the last axis `name` is of its source: a 2-way equal Split, or a Slice at headDim / 2. */
function halfOf(
  walker: Walker,
  name: string,
  headDim: number,
): { source: string; which: 'first' | 'second' } | null {
  const node = walker.producer(name);
  const half = headDim / 2;
  const isLastAxis = (axis: number | undefined) => axis === -1 || axis === 3 || axis === 4;
  if (node?.opType === 'Split' && node.outputs.length === 2) {
    const sizes = walker.ints(node.inputs[1] ?? '') ?? null;
    if (sizes && (sizes[0] !== half || sizes[1] !== half)) return null;
    if (!isLastAxis(intAttribute(node, 'axis', 0))) return null;
    const which = node.outputs.indexOf(walker.skip(name)) === 0 ? 'first' : 'second';
    return { source: node.inputs[0]!, which };
  }
  if (node?.opType !== 'Slice') return null;
  const [source = '', startsName = '', endsName = '', axesName = '', stepsName = ''] = node.inputs;
  const [start] = walker.ints(startsName) ?? [];
  const [end] = walker.ints(endsName) ?? [];
  const [axis] = axesName ? (walker.ints(axesName) ?? []) : [0];
  const [step] = stepsName ? (walker.ints(stepsName) ?? []) : [1];
  if (!isLastAxis(axis) || step !== 1) return null;
  if (start === 0 && end === half) return { source, which: 'first' };
  if (start === half && end !== undefined && end >= headDim) return { source, which: 'second' };
  return null;
}

/** The angles of a cos side and a sin side together: equal frequencies, or a cos table and a sin table. */
function mergedAngles(cos: Angles, sin: Angles): Angles | null {
  if (cos.kind === 'frequencies' && sin.kind === 'frequencies')
    return cos.inverse.length === sin.inverse.length && cos.inverse.every((v, i) => v === sin.inverse[i])
      ? cos
      : null;
  if (cos.kind !== 'tables' || sin.kind !== 'tables' || cos.numPositions !== sin.numPositions) return null;
  return { kind: 'tables', cos: cos.cos, sin: sin.sin, numPositions: cos.numPositions };
}

interface Traced {
  angles: Angles;
  positions: string;
}

/**
 * The angles behind a cos (or sin) operand: through layout ops and a Mul by 1 (an exporter's
 * attention scaling of 1), a duplication `concat(h, h)` (or `concat(−h, h)` when `isSigned`), to
 * Cos/Sin of position × inverse frequencies, or to a gathered cos/sin table.
 */
function anglesOf(
  walker: Walker,
  name: string,
  fn: 'Cos' | 'Sin',
  isSigned: boolean,
  headDim: number,
  part: string,
): Traced {
  let value = walker.skip(name, LAYOUT_OPS);
  const scaled = walker.producerIs(value, 'Mul');
  if (scaled) {
    const scale = scaled.inputs.map((input) => walker.scalar(input));
    const at = scale.findIndex((s) => s !== null);
    expectFor(part, at >= 0, `its ${fn.toLowerCase()} is multiplied by a computed value`);
    expectFor(
      part,
      scale[at] === 1,
      `its ${fn.toLowerCase()} is scaled by ${scale[at]} (YaRN-style attention scaling)`,
    );
    value = walker.skip(scaled.inputs[1 - at]!, LAYOUT_OPS);
  }
  const node = walker.producer(value, LAYOUT_OPS);
  expectFor(part, node !== null, `its ${fn.toLowerCase()} is ${describeProducer(walker, value)}`);
  if (node.opType === 'Concat' && node.inputs.length === 2) {
    const [concatUpper = '', lower = ''] = node.inputs;
    let upper = concatUpper;
    const neg = walker.producerIs(upper, 'Neg', LAYOUT_OPS);
    expectFor(part, (neg !== null) === isSigned, `its ${fn.toLowerCase()} halves have the wrong signs`);
    if (neg) upper = neg.inputs[0]!;
    expectFor(part, walker.same(upper, lower), `its ${fn.toLowerCase()} halves differ`);
    return halfAngles(walker, lower, fn, headDim, part);
  }
  expectFor(part, !isSigned, `its ${fn.toLowerCase()} is not concat(−sin, sin)`);
  if (node.opType === 'Gather') return gatheredTable(walker, node, fn, headDim, headDim, part);
  if (node.opType === fn) {
    const inner = walker.producerIs(node.inputs[0]!, 'Concat', LAYOUT_OPS);
    expectFor(
      part,
      inner !== null && inner.inputs.length === 2 && walker.same(inner.inputs[0]!, inner.inputs[1]!),
      `its ${fn.toLowerCase()} is not of concat(freqs, freqs)`,
    );
    return frequencies(walker, inner.inputs[0]!, headDim, part);
  }
  throw new FusionRefused(part, `its ${fn.toLowerCase()} comes from ${node.opType}`);
}

/** Half-width angles: Cos/Sin of frequencies, or a gathered [positions, headDim / 2] table. */
function halfAngles(walker: Walker, name: string, fn: 'Cos' | 'Sin', headDim: number, part: string): Traced {
  const node = walker.producer(name, LAYOUT_OPS);
  if (node?.opType === fn) return frequencies(walker, node.inputs[0]!, headDim, part);
  expectFor(
    part,
    node?.opType === 'Gather',
    `its ${fn.toLowerCase()} comes from ${node?.opType ?? 'a constant'}`,
  );
  return gatheredTable(walker, node, fn, headDim / 2, headDim, part);
}

/**
 * A cos or sin table gathered by position: [positions, width] with width headDim / 2, or headDim
 * when it holds both (equal) halves, as older exports' `cos_cached` does.
 */
function gatheredTable(
  walker: Walker,
  node: NodeView,
  fn: 'Cos' | 'Sin',
  width: number,
  headDim: number,
  part: string,
): Traced {
  const name = fn.toLowerCase();
  const table = walker.floats(node.inputs[0]!);
  expectFor(
    part,
    table !== null && table.length % width === 0,
    `its ${name} table is not [positions, ${width}]`,
  );
  const half = headDim / 2;
  const numPositions = table.length / width;
  const values = width === half ? table : new Float32Array(numPositions * half);
  if (width !== half)
    for (let p = 0; p < numPositions; p++) {
      const row = table.subarray(p * width, (p + 1) * width);
      expectFor(
        part,
        row.subarray(0, half).every((v, i) => v === row[half + i]),
        `its ${name} table's halves differ`,
      );
      values.set(row.subarray(0, half), p * half);
    }
  const empty = new Float32Array(0);
  const angles: Angles =
    fn === 'Cos'
      ? { kind: 'tables', cos: values, sin: empty, numPositions }
      : { kind: 'tables', cos: empty, sin: values, numPositions };
  return { angles, positions: node.inputs[1]! };
}

/** position × inverse frequencies: Mul or MatMul of the positions by a constant of headDim / 2 values. */
function frequencies(walker: Walker, name: string, headDim: number, part: string): Traced {
  const node = walker.producer(name, LAYOUT_OPS);
  expectFor(
    part,
    node?.opType === 'Mul' || node?.opType === 'MatMul',
    `its angles come from ${node?.opType ?? 'a constant'}`,
  );
  const at = node.inputs.findIndex((input) => walker.floats(input)?.length === headDim / 2);
  expectFor(
    part,
    at >= 0,
    `its angles are not positions × ${headDim / 2} inverse frequencies (partial rotary?)`,
  );
  return {
    angles: { kind: 'frequencies', inverse: walker.floats(node.inputs[at]!)! },
    positions: node.inputs[1 - at]!,
  };
}
