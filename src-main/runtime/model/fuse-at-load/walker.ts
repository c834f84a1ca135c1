import { floatValues, intValues } from '../onnx-graph/tensor-view';
import type { GraphView, NodeView } from '../onnx-graph/graph-view';
import type { TensorView } from '../onnx-graph/tensor-view';

/** ONNX float element type codes a Cast may convert between without leaving the float domain. */
const FLOAT_CODES = new Set([1, 10, 11, 16]);

/** Ops that leave values as they are (Identity, a Cast between float types). */
export const VALUE_OPS: ReadonlySet<string> = new Set(['Identity', 'Cast']);
/** Ops that only move or repeat values (head splits, repeat_kv), besides VALUE_OPS. */
export const LAYOUT_OPS: ReadonlySet<string> = new Set([
  ...VALUE_OPS,
  'Reshape',
  'Transpose',
  'Unsqueeze',
  'Squeeze',
  'Expand',
  'Flatten',
]);
/** Ops a weight or a constant reaches its reader through. */
const CONSTANT_OPS: ReadonlySet<string> = new Set([...LAYOUT_OPS]);
/** Ops that compute with weights: what the attention mask never goes through. */
const PROJECTION_OPS = new Set(['MatMul', 'Gemm', 'MatMulNBits', 'MatMulInteger', 'GatherBlockQuantized']);
/** Ops whose output depends only on their input's shape, never on its values. */
const SHAPE_OPS = new Set(['Shape', 'Size']);

/** Whether `node` is one of `ops` and passes its first input on (a Cast only between float types). */
function passesThrough(node: NodeView, ops: ReadonlySet<string>): boolean {
  if (!ops.has(node.opType) || (node.domain !== '' && node.domain !== 'ai.onnx')) return false;
  if (node.opType !== 'Cast') return true;
  const to = node.attributes.get('to');
  return to?.kind === 'int' && FLOAT_CODES.has(to.value);
}

/** Walks a graph's dataflow backwards from a value: producers, constants, what a value depends on. */
export class Walker {
  private readonly inputsMemo = new Map<string, ReadonlySet<string>>();
  private readonly projectionMemo = new Map<string, boolean>();

  constructor(readonly graph: GraphView) {}

  /** `name` after stepping back through `ops` (by default VALUE_OPS). */
  skip(name: string, ops: ReadonlySet<string> = VALUE_OPS): string {
    for (let node = this.graph.producerOf(name); node && passesThrough(node, ops);) {
      name = node.inputs[0]!;
      node = this.graph.producerOf(name);
    }
    return name;
  }

  /** The node producing `name` once `ops` are stepped through, or null (an input or a constant). */
  producer(name: string, ops: ReadonlySet<string> = VALUE_OPS): NodeView | null {
    return this.graph.producerOf(this.skip(name, ops));
  }

  /** The producer when it is `opType` (default domain unless given), else null. */
  producerIs(
    name: string,
    opType: string,
    ops: ReadonlySet<string> = VALUE_OPS,
    domain = '',
  ): NodeView | null {
    const node = this.producer(name, ops);
    return node && node.opType === opType && normalDomain(node.domain) === domain ? node : null;
  }

  /** Whether two names hold the same value once VALUE_OPS are stepped through. */
  same(a: string, b: string): boolean {
    return this.skip(a) === this.skip(b);
  }

  /** The constant behind `name` (through layout ops and float Casts), or null. */
  constant(name: string): TensorView | null {
    return name ? this.graph.constant(this.skip(name, CONSTANT_OPS)) : null;
  }

  /** A float constant's values, or null. */
  floats(name: string): Float32Array | null {
    const tensor = this.constant(name);
    return tensor ? floatValues(tensor) : null;
  }

  /** An integer constant's values, or null. */
  ints(name: string): number[] | null {
    const tensor = this.constant(name);
    return tensor ? intValues(tensor) : null;
  }

  /** A float constant holding one value (any shape with one element), or null. */
  scalar(name: string): number | null {
    const values = this.floats(name);
    return values && values.length === 1 ? values[0]! : null;
  }

  /**
   * The graph inputs (or outer values) `name` depends on, constants aside. Memoized: the mask
   * and rotary subgraphs are shared by every layer.
   */
  inputsOf(name: string): ReadonlySet<string> {
    const memo = this.inputsMemo.get(name);
    if (memo) return memo;
    const node = this.graph.producerOf(name);
    const found = new Set<string>();
    if (!node) {
      if (name && !this.graph.constant(name)) found.add(name);
    } else for (const input of node.inputs) for (const each of this.inputsOf(input)) found.add(each);
    this.inputsMemo.set(name, found);
    return found;
  }

  /** Whether `name` is computed through a weight projection (MatMul and kin); a mask never is. */
  dependsOnProjection(name: string): boolean {
    const memo = this.projectionMemo.get(name);
    if (memo !== undefined) return memo;
    const node = this.graph.producerOf(name);
    const result =
      node !== null &&
      !SHAPE_OPS.has(node.opType) &&
      (PROJECTION_OPS.has(node.opType) || node.inputs.some((input) => this.dependsOnProjection(input)));
    this.projectionMemo.set(name, result);
    return result;
  }

  /** Whether `name` depends on a float constant of more than one value (a learned bias, a table). */
  readsFloatTable(name: string, seen = new Set<string>()): boolean {
    if (seen.has(name)) return false;
    seen.add(name);
    const node = this.graph.producerOf(name);
    if (!node) {
      const tensor = this.graph.constant(name);
      return tensor !== null && (floatValues(tensor)?.length ?? 0) > 1;
    }
    if (node.opType === 'Constant') {
      const tensor = this.graph.constant(name);
      return tensor !== null && (floatValues(tensor)?.length ?? 0) > 1;
    }
    if (SHAPE_OPS.has(node.opType)) return false;
    return node.inputs.some((input) => input !== '' && this.readsFloatTable(input, seen));
  }
}

/** '' for the default domain however it is written. */
export function normalDomain(domain: string): string {
  return domain === 'ai.onnx' ? '' : domain;
}

/** The op a value comes from, for a refusal's words (`an input`, `Gelu`). */
export function describeProducer(walker: Walker, name: string): string {
  const node = walker.producer(name);
  if (node) return node.domain && node.domain !== 'ai.onnx' ? `${node.domain}.${node.opType}` : node.opType;
  return walker.constant(name) ? 'a constant' : `the input "${walker.skip(name)}"`;
}
