/**
 * A whole ONNX graph read from a model's bytes for analysis (load-time fusion): every node with
 * its attributes, initializers with their data as views into the bytes (or into the external
 * data files passed in), inputs and outputs with their types. Subgraphs (If branches) are read
 * on demand and see the outer graph's names. Read-only: a rewrite builds a new model.
 */
import { WIRE } from './proto-reader';
import { fieldsOf, floatsOf, signedVarintOf, signedVarintsOf, textOf, varintOf } from './proto-bytes';
import type { FieldSpan } from './proto-bytes';
import { elementTypeName } from './element-types';
import { tensorNameOf, tensorOf } from './tensor-view';
import type { ExternalBytes, Source, TensorView } from './tensor-view';

export { floatValues, intValues, numElements, typedView } from './tensor-view';
export type { ExternalBytes, TensorView } from './tensor-view';

/** A graph input or output: name, element type and dims (a number, a symbol or unknown). */
export interface ValueView {
  name: string;
  elemType: string;
  dims: Array<number | string | null>;
}

/** One node attribute's value, by its kind. */
export type AttributeView =
  | { kind: 'int' | 'float'; value: number }
  | { kind: 'ints' | 'floats'; value: number[] }
  | { kind: 'string'; value: string }
  | { kind: 'tensor'; value: TensorView }
  | { kind: 'graph'; span: FieldSpan }
  | { kind: 'other' };

/** One node: op type, domain ('' for the default one), inputs, outputs and attributes by name. */
export interface NodeView {
  opType: string;
  domain: string;
  name: string;
  inputs: string[];
  outputs: string[];
  attributes: Map<string, AttributeView>;
}

const ATTRIBUTE_KIND: Record<number, AttributeView['kind']> = {
  1: 'float',
  2: 'int',
  3: 'string',
  4: 'tensor',
  5: 'graph',
  6: 'floats',
  7: 'ints',
};

/** An INT attribute, or `fallback` when the node does not set it. */
export function intAttribute(node: NodeView, name: string, fallback: number): number {
  const attribute = node.attributes.get(name);
  return attribute?.kind === 'int' ? attribute.value : fallback;
}

/** A FLOAT attribute, or `fallback`. */
export function floatAttribute(node: NodeView, name: string, fallback: number): number {
  const attribute = node.attributes.get(name);
  return attribute?.kind === 'float' ? attribute.value : fallback;
}

/** An INTS attribute, or null when the node does not set it. */
export function intsAttribute(node: NodeView, name: string): number[] | null {
  const attribute = node.attributes.get(name);
  return attribute?.kind === 'ints' ? attribute.value : null;
}

/** One graph of the model (the main graph or a subgraph), indexed for walking its dataflow. */
export class GraphView {
  readonly nodes: NodeView[] = [];
  readonly inputs: ValueView[] = [];
  readonly outputs: ValueView[] = [];
  private readonly initializerSpans = new Map<string, FieldSpan>();
  private readonly tensors = new Map<string, TensorView>();
  private readonly producers = new Map<string, NodeView>();

  constructor(
    private readonly source: Source,
    span: { valueAt: number; endAt: number },
    readonly parent: GraphView | null,
  ) {
    const { bytes } = source;
    for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
      if (f.wireType !== WIRE.bytes) continue;
      if (f.field === 1) this.nodes.push(nodeOf(source, f));
      else if (f.field === 5) this.initializerSpans.set(tensorNameOf(bytes, f), f);
      else if (f.field === 11) this.inputs.push(valueOf(bytes, f));
      else if (f.field === 12) this.outputs.push(valueOf(bytes, f));
    }
    for (const node of this.nodes) for (const output of node.outputs) this.producers.set(output, node);
  }

  /** The node of this graph writing `name`, or null (an input, an initializer, an outer value). */
  producerOf(name: string): NodeView | null {
    return this.producers.get(name) ?? null;
  }

  /** The initializer `name` of this graph or an enclosing one, or null. */
  initializer(name: string): TensorView | null {
    const cached = this.tensors.get(name);
    if (cached) return cached;
    const span = this.initializerSpans.get(name);
    if (!span) return this.parent?.initializer(name) ?? null;
    const tensor = tensorOf(this.source, span);
    this.tensors.set(name, tensor);
    return tensor;
  }

  /** `name` as a constant: an initializer, or a Constant node's value, in this graph or an enclosing one. */
  constant(name: string): TensorView | null {
    const node = this.producers.get(name);
    if (!node) return this.initializer(name) ?? this.parent?.constant(name) ?? null;
    return node.opType === 'Constant' && node.domain === '' ? constantNodeValue(node) : null;
  }

  /** The subgraph in a node's graph attribute (an If branch), seeing this graph's names. */
  subgraph(node: NodeView, attributeName: string): GraphView | null {
    const attribute = node.attributes.get(attributeName);
    return attribute?.kind === 'graph' ? new GraphView(this.source, attribute.span, this) : null;
  }
}

/** The main graph of a model and its opset imports (domain → version, '' for the default domain). */
export interface ModelView {
  graph: GraphView;
  opsets: Map<string, number>;
}

/**
 * Reads a ModelProto's main graph for analysis. External data is looked up by location in
 * `externalData`; throws when the model has no graph or a field is cut short.
 */
export function readModelView(bytes: Uint8Array, externalData: readonly ExternalBytes[] = []): ModelView {
  const source = { bytes, external: new Map(externalData.map((file) => [file.path, file.data])) };
  const modelFields = fieldsOf(bytes);
  const graphSpan = modelFields.find((f) => f.field === 7 && f.wireType === WIRE.bytes);
  if (!graphSpan) throw new Error('the model has no graph');
  const opsets = new Map<string, number>();
  for (const span of modelFields.filter((f) => f.field === 8 && f.wireType === WIRE.bytes)) {
    const fields = fieldsOf(bytes, span.valueAt, span.endAt);
    const domain = fields.find((f) => f.field === 1 && f.wireType === WIRE.bytes);
    const version = fields.find((f) => f.field === 2 && f.wireType === WIRE.varint);
    const name = domain ? textOf(bytes, domain) : '';
    opsets.set(name === 'ai.onnx' ? '' : name, version ? varintOf(bytes, version) : 0);
  }
  return { graph: new GraphView(source, graphSpan, null), opsets };
}

function nodeOf(source: Source, span: FieldSpan): NodeView {
  const { bytes } = source;
  const node: NodeView = { opType: '', domain: '', name: '', inputs: [], outputs: [], attributes: new Map() };
  for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
    if (f.wireType !== WIRE.bytes) continue;
    if (f.field === 1) node.inputs.push(textOf(bytes, f));
    else if (f.field === 2) node.outputs.push(textOf(bytes, f));
    else if (f.field === 3) node.name = textOf(bytes, f);
    else if (f.field === 4) node.opType = textOf(bytes, f);
    else if (f.field === 7) node.domain = textOf(bytes, f) === 'ai.onnx' ? '' : textOf(bytes, f);
    else if (f.field === 5) {
      const [name, value] = attributeOf(source, f);
      node.attributes.set(name, value);
    }
  }
  return node;
}

/** AttributeProto: name 1, f 2, i 3, s 4, t 5, g 6, floats 7, ints 8, type 20. */
function attributeOf(source: Source, span: FieldSpan): [string, AttributeView] {
  const { bytes } = source;
  const fields = fieldsOf(bytes, span.valueAt, span.endAt);
  const byField = (n: number) => fields.filter((f) => f.field === n);
  const nameField = byField(1)[0];
  const typeField = byField(20)[0];
  const kind = typeField ? (ATTRIBUTE_KIND[varintOf(bytes, typeField)] ?? 'other') : inferredKind(fields);
  const name = nameField ? textOf(bytes, nameField) : '';
  const first = (n: number) => byField(n)[0];
  if (kind === 'int') return [name, { kind, value: first(3) ? signedVarintOf(bytes, first(3)!) : 0 }];
  if (kind === 'float') return [name, { kind, value: first(2) ? floatsOf(bytes, first(2)!)[0]! : 0 }];
  if (kind === 'ints') return [name, { kind, value: byField(8).flatMap((f) => signedVarintsOf(bytes, f)) }];
  if (kind === 'floats') return [name, { kind, value: byField(7).flatMap((f) => floatsOf(bytes, f)) }];
  if (kind === 'string') return [name, { kind, value: first(4) ? textOf(bytes, first(4)!) : '' }];
  if (kind === 'tensor' && first(5)) return [name, { kind, value: tensorOf(source, first(5)!) }];
  if (kind === 'graph' && first(6)) return [name, { kind, span: first(6)! }];
  return [name, { kind: 'other' }];
}

/** An attribute's kind from the field it sets, for writers that leave `type` out. */
function inferredKind(fields: FieldSpan[]): AttributeView['kind'] {
  const kinds: Array<[number, AttributeView['kind']]> = [
    [3, 'int'],
    [2, 'float'],
    [8, 'ints'],
    [7, 'floats'],
    [4, 'string'],
    [5, 'tensor'],
    [6, 'graph'],
  ];
  return kinds.find(([field]) => fields.some((f) => f.field === field))?.[1] ?? 'other';
}

/** ValueInfoProto → type (2) → tensor_type (1) → elem_type (1), shape (2) → dim (1) → value 1 | param 2. */
function valueOf(bytes: Uint8Array, span: FieldSpan): ValueView {
  const value: ValueView = { name: '', elemType: 'undefined', dims: [] };
  for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
    if (f.field === 1 && f.wireType === WIRE.bytes) value.name = textOf(bytes, f);
    if (f.field !== 2 || f.wireType !== WIRE.bytes) continue;
    const tensorType = fieldsOf(bytes, f.valueAt, f.endAt).find((t) => t.field === 1);
    if (!tensorType) continue;
    for (const t of fieldsOf(bytes, tensorType.valueAt, tensorType.endAt)) {
      if (t.field === 1 && t.wireType === WIRE.varint) value.elemType = elementTypeName(varintOf(bytes, t));
      if (t.field !== 2 || t.wireType !== WIRE.bytes) continue;
      for (const dim of fieldsOf(bytes, t.valueAt, t.endAt).filter((d) => d.field === 1)) {
        const parts = fieldsOf(bytes, dim.valueAt, dim.endAt);
        const fixed = parts.find((p) => p.field === 1 && p.wireType === WIRE.varint);
        const symbol = parts.find((p) => p.field === 2 && p.wireType === WIRE.bytes);
        value.dims.push(fixed ? signedVarintOf(bytes, fixed) : symbol ? textOf(bytes, symbol) : null);
      }
    }
  }
  return value;
}

/** A Constant node's value (`value`, or `value_float(s)` / `value_int(s)`) as a tensor. */
function constantNodeValue(node: NodeView): TensorView | null {
  const name = node.outputs[0] ?? '';
  const asBytes = (array: ArrayBufferView) =>
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (const [key, attribute] of node.attributes) {
    if (key === 'value' && attribute.kind === 'tensor') return { ...attribute.value, name };
    if (key === 'value_float' && attribute.kind === 'float')
      return { name, elemType: 'float32', dims: [], bytes: asBytes(Float32Array.of(attribute.value)) };
    if (key === 'value_floats' && attribute.kind === 'floats')
      return {
        name,
        elemType: 'float32',
        dims: [attribute.value.length],
        bytes: asBytes(Float32Array.from(attribute.value)),
      };
    if (key === 'value_int' && attribute.kind === 'int')
      return { name, elemType: 'int64', dims: [], bytes: asBytes(BigInt64Array.of(BigInt(attribute.value))) };
    if (key === 'value_ints' && attribute.kind === 'ints')
      return {
        name,
        elemType: 'int64',
        dims: [attribute.value.length],
        bytes: asBytes(BigInt64Array.from(attribute.value, BigInt)),
      };
  }
  return null;
}
