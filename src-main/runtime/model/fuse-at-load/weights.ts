import { intAttribute, intsAttribute } from '../onnx-graph/graph-view';
import { floatValues, numElements, typedView } from '../onnx-graph/tensor-view';
import type { NodeView } from '../onnx-graph/graph-view';
import type { TensorView } from '../onnx-graph/tensor-view';
import type { BlockWeight, FloatWeight, MatrixWeight } from '../fused-graph/weight-set';
import { expectFor, FusionRefused } from './refusal';
import { describeProducer, normalDomain, VALUE_OPS } from './walker';
import type { Walker } from './walker';

/**
 * A weight as the graph holds it, and where it came from: `source` names the initializer its
 * values are read from (a tied head reads the embedding's), `accuracyLevel` is a MatMulNBits'.
 */
export interface FoundWeight {
  weight: MatrixWeight;
  source: string;
  accuracyLevel: number | null;
}

/** A projection: its weight, the activations it multiplies, and the bias added after it (q/k/v only). */
export interface Projection extends FoundWeight {
  input: string;
  /** An Add of a stored [out] vector right after it (Qwen2's q/k/v), or null. */
  bias: FloatWeight | null;
}

/** Ops that hold int8 weights in forms the fused writer does not take (it takes MatMulNBits blocks). */
const INT8_OPS = new Set(['DequantizeLinear', 'MatMulInteger', 'DynamicQuantizeMatMul', 'QLinearMatMul']);
const FLOAT_TYPES = new Set(['float32', 'float16', 'bfloat16']);

/** A float initializer (through float Casts) as a weight of `order`, or null when it is not one. */
export function floatWeightAt(
  walker: Walker,
  name: string,
  order: FloatWeight['order'],
  rank: number,
): { weight: FloatWeight; source: string } | null {
  const source = walker.skip(name);
  const tensor = walker.graph.producerOf(source) ? null : walker.graph.initializer(source);
  if (!tensor || !FLOAT_TYPES.has(tensor.elemType) || tensor.dims.length !== rank) return null;
  return { weight: floatWeightOf(tensor, order), source };
}

function floatWeightOf(tensor: TensorView, order: FloatWeight['order']): FloatWeight {
  const count = numElements(tensor);
  const shape = [...tensor.dims];
  if (tensor.elemType === 'float32')
    return {
      kind: 'float',
      dtype: 'float32',
      data: typedView(tensor.bytes, Float32Array, count),
      shape,
      order,
    };
  const data = typedView(tensor.bytes, Uint16Array, count);
  return tensor.elemType === 'float16'
    ? { kind: 'float', dtype: 'float16', data, shape, order }
    : { kind: 'float', dtype: 'bfloat16', data, shape, order };
}

/** A norm's weight: a float vector initializer; refuses when it is computed (Gemma's 1 + weight). */
export function normWeightAt(walker: Walker, name: string, part: string): FloatWeight {
  const found = floatWeightAt(walker, name, 'out-in', 1);
  if (found) return found.weight;
  const node = walker.producer(name);
  if (node?.opType === 'Add' && node.inputs.some((input) => walker.scalar(input) === 1))
    throw new FusionRefused(
      part,
      'its weight is 1 + a learned vector (Gemma-style norm), not a plain weight',
    );
  throw new FusionRefused(
    part,
    `its weight comes from ${describeProducer(walker, name)}, not a stored vector`,
  );
}

/** The weight operand of a MatMul / Gemm: [in, out] as stored, or [out, in] under a Transpose or transB. */
function matMulWeight(walker: Walker, name: string, isTransposed: boolean, part: string): FoundWeight | null {
  const transpose = walker.producerIs(name, 'Transpose');
  const perm = transpose ? intsAttribute(transpose, 'perm') : null;
  const isSwapped = transpose !== null && (perm === null || (perm[0] === 1 && perm[1] === 0));
  const stored = isSwapped ? transpose!.inputs[0]! : name;
  const found = floatWeightAt(walker, stored, isSwapped !== isTransposed ? 'out-in' : 'in-out', 2);
  if (found) return { ...found, accuracyLevel: null };
  const int8 = walker.producer(stored);
  if (int8 && INT8_OPS.has(int8.opType))
    throw new FusionRefused(part, `its weight is int8 through ${int8.opType}; only MatMulNBits blocks fuse`);
  return null;
}

/** MatMulNBits' blocks as a BlockWeight (kept as blocks: never widened to float). */
function blockWeightOf(walker: Walker, node: NodeView, part: string): FoundWeight {
  const [, dataName = '', scalesName = '', zeroName = '', groupName = '', biasName = ''] = node.inputs;
  expectFor(part, !biasName, 'it has a bias');
  expectFor(part, !groupName, 'its MatMulNBits has g_idx (act-order), which the fused form does not take');
  const bits = intAttribute(node, 'bits', 4);
  expectFor(part, bits === 4 || bits === 8, `its MatMulNBits has ${bits} bits; 4 or 8 fuse`);
  const data = walker.constant(dataName);
  const scales = walker.constant(scalesName);
  const zeroPoints = zeroName ? walker.constant(zeroName) : null;
  expectFor(
    part,
    data !== null && data.elemType === 'uint8',
    'its MatMulNBits codes are not a uint8 constant',
  );
  expectFor(part, scales !== null, 'its MatMulNBits scales are not a constant');
  expectFor(part, !zeroName || zeroPoints?.elemType === 'uint8', 'its MatMulNBits zero points are not uint8');
  const weight: BlockWeight = {
    kind: 'blocks',
    bits,
    blockSize: intAttribute(node, 'block_size', 0),
    numRows: intAttribute(node, 'N', 0),
    numCols: intAttribute(node, 'K', 0),
    data: data.bytes,
    scales: floatValues(scales) ?? new Float32Array(0),
    zeroPoints: zeroPoints ? zeroPoints.bytes : null,
  };
  return { weight, source: walker.skip(dataName), accuracyLevel: intAttribute(node, 'accuracy_level', 0) };
}

/**
 * The projection writing `value`: MatMul by a float weight (fp32, or fp16/bf16 through a Cast),
 * Gemm without bias, or MatMulNBits. Null when `value` is not a projection's output. A bias (an
 * Add of a stored vector after it) is taken when `isBiasFused` (q/k/v: the fused writer adds them)
 * and refused otherwise, naming the Add; an int8 form that does not fuse is refused.
 */
export function projectionAt(
  walker: Walker,
  value: string,
  part: string,
  isBiasFused = false,
): Projection | null {
  const node = walker.producer(value);
  if (!node) return null;
  if (node.opType === 'Add' && node.inputs.some((input) => walker.constant(input))) {
    const biased = biasedProjection(walker, node, part);
    if (biased && !isBiasFused)
      throw new FusionRefused(
        part,
        `its projection of ${biased.source} has a bias (the Add "${node.name}" of a constant after it); only q, k and v biases fuse`,
      );
    if (biased) return biased;
  }
  const domain = normalDomain(node.domain);
  const [input = '', weightName = ''] = node.inputs;
  if (domain === 'com.microsoft' && node.opType === 'MatMulNBits')
    return { ...blockWeightOf(walker, node, part), input, bias: null };
  if (domain !== '') return null;
  if (node.opType === 'MatMul') {
    const found = matMulWeight(walker, weightName, false, part);
    return found ? { ...found, input, bias: null } : null;
  }
  if (node.opType !== 'Gemm') return null;
  expectFor(part, !node.inputs[2], 'its Gemm has a bias');
  expectFor(part, intAttribute(node, 'transA', 0) === 0, 'its Gemm transposes the activations');
  expectFor(part, Math.fround(1) === Math.fround(floatAttr(node, 'alpha')), 'its Gemm scales by alpha ≠ 1');
  const found = matMulWeight(walker, weightName, intAttribute(node, 'transB', 0) === 1, part);
  return found ? { ...found, input, bias: null } : null;
}

/** Add(projection, stored vector) as the projection with its bias; null when no projection is added to. */
function biasedProjection(walker: Walker, add: NodeView, part: string): Projection | null {
  const at = add.inputs.findIndex((input) => walker.constant(input));
  const projection = projectionAt(walker, add.inputs[1 - at] ?? '', part);
  if (!projection) return null;
  const bias = floatWeightAt(walker, add.inputs[at]!, 'out-in', 1);
  const [numOut] = outIn(projection.weight);
  expectFor(
    part,
    bias !== null && bias.weight.shape[0] === numOut,
    () =>
      `its bias (the Add "${add.name}") is not a stored float vector of its ${numOut} outputs (${describeProducer(walker, add.inputs[at]!)})`,
  );
  return { ...projection, bias: bias.weight };
}

/** [out, in] of a matrix as stored. */
export function outIn(weight: MatrixWeight): [number, number] {
  if (weight.kind === 'blocks') return [weight.numRows, weight.numCols];
  const [a = 0, b = 0] = weight.shape;
  return weight.order === 'out-in' ? [a, b] : [b, a];
}

function floatAttr(node: NodeView, name: string): number {
  const attribute = node.attributes.get(name);
  return attribute?.kind === 'float' ? attribute.value : 1;
}

/** A projection that must be there (a bias taken when `isBiasFused`): refuses with what was found instead. */
export function requireProjection(
  walker: Walker,
  value: string,
  part: string,
  isBiasFused = false,
): Projection {
  const projection = projectionAt(walker, value, part, isBiasFused);
  if (projection) return projection;
  throw new FusionRefused(
    part,
    `expected a projection (MatMul, Gemm or MatMulNBits on a stored weight), found ${describeProducer(walker, value)}`,
  );
}

/** The token embedding behind `value`: Gather of a float table, or GatherBlockQuantized blocks. */
export function embeddingAt(walker: Walker, value: string): FoundWeight & { scalesKey: Float32Array | null } {
  const part = 'embedding';
  const node = walker.producer(value, new Set([...VALUE_OPS, 'Reshape']));
  if (node?.opType === 'Mul' && node.inputs.some((input) => walker.scalar(input) !== null))
    throw new FusionRefused(
      part,
      'it is scaled by a constant (Mul) before layer 0; the fused form does not scale it',
    );
  expectFor(
    part,
    node !== null,
    () => `expected a Gather of input_ids, found ${describeProducer(walker, value)}`,
  );
  expectFor(part, walker.skip(node.inputs[1] ?? '') === 'input_ids', 'it does not read input_ids');
  if (node.opType === 'Gather' && normalDomain(node.domain) === '') {
    expectFor(part, intAttribute(node, 'axis', 0) === 0, 'its Gather is not along axis 0');
    const found = floatWeightAt(walker, node.inputs[0]!, 'out-in', 2);
    expectFor(part, found !== null, 'its table is not a stored float matrix');
    return { ...found, accuracyLevel: null, scalesKey: null };
  }
  expectFor(
    part,
    node.opType === 'GatherBlockQuantized',
    () => `expected a Gather of input_ids, found ${node.opType}`,
  );
  return blockEmbeddingOf(walker, node, part);
}

function blockEmbeddingOf(
  walker: Walker,
  node: NodeView,
  part: string,
): FoundWeight & { scalesKey: Float32Array | null } {
  const [dataName = '', , scalesName = '', zeroName = ''] = node.inputs;
  expectFor(part, !zeroName, 'its blocks have zero points (asymmetric); the fused form takes symmetric ones');
  expectFor(part, intAttribute(node, 'gather_axis', 0) === 0, 'its GatherBlockQuantized is not along axis 0');
  const data = walker.constant(dataName);
  const scales = walker.constant(scalesName);
  expectFor(
    part,
    data?.elemType === 'uint8' && scales !== null,
    'its blocks are not uint8 codes with scales',
  );
  const bits = intAttribute(node, 'bits', 4);
  const blockSize = intAttribute(node, 'block_size', 128);
  expectFor(part, bits === 4 || bits === 8, `its blocks have ${bits} bits; 4 or 8 fuse`);
  const scaleValues = floatValues(scales)!;
  const numRows = data.dims[0]!;
  const numBlocks = scaleValues.length / numRows;
  const weight: BlockWeight = {
    kind: 'blocks',
    bits,
    blockSize,
    numRows,
    numCols: numBlocks * blockSize,
    data: data.bytes,
    scales: scaleValues,
    zeroPoints: null,
  };
  return { weight, source: walker.skip(dataName), accuracyLevel: null, scalesKey: scaleValues };
}
