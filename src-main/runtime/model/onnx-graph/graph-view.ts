/**
 * The one model of an ONNX graph, read from a file through a window (listing: payloads never
 * read) or from bytes in memory (load-time fusion, slot rewrites): every node with its attributes
 * and where it sits, initializers read on demand (data as views into the bytes or into the
 * external data files passed in), inputs and outputs with their types. Subgraphs (If branches)
 * are read on demand and see the outer graph's names. Read-only: a rewrite copies the spans it
 * keeps and writes new fields (graph-writes.ts); listing's summary derives from it (graph-summary.ts).
 */
import {
  FileWindow,
  MemoryBytes,
  MessageReader,
  WIRE,
  fieldsOf,
  floatsOf,
  signedVarintOf,
  signedVarintsOf,
  textOf,
  varintOf,
} from './proto-reader';
import type { ByteSource, FieldSpan } from './proto-reader';
import { elementTypeName } from './element-types';
import { tensorHeaderOf, tensorOf } from './tensor-view';
import type { ExternalBytes, Source, TensorHeader, TensorView } from './tensor-view';

/** A graph input or output: name, element type (ONNX name, e.g. `float16`) and dims (number, symbol or unknown). */
export interface TensorInfo {
  name: string;
  elemType: string;
  dims: Array<number | string | null>;
}

/** A graph input or output as the model holds it: where it sits, its type code, whether a shape is declared. */
export interface ValueView extends TensorInfo {
  span: FieldSpan;
  /** The TensorProto.DataType code (0 when none is declared). */
  elemTypeCode: number;
  /** False when no shape is declared (then `dims` is empty and the rank unknown). */
  hasShape: boolean;
}

/** One node attribute's value, by its kind; a tensor or graph is read when asked for. */
export type AttributeView =
  | { kind: 'int' | 'float'; value: number }
  | { kind: 'ints' | 'floats'; value: number[] }
  | { kind: 'string'; value: string }
  | { kind: 'tensor'; span: FieldSpan }
  | { kind: 'graph' | 'graphs'; spans: FieldSpan[] }
  | { kind: 'other' };

/** One node: where it sits, op type, domain ('' for the default one), inputs, outputs and attributes by name. */
export interface NodeView {
  span: FieldSpan;
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
  10: 'graphs',
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
  /** The graph's own fields, in order (a rewrite copies those it keeps). */
  readonly fields: FieldSpan[];
  readonly nodes: NodeView[] = [];
  readonly inputs: ValueView[] = [];
  readonly outputs: ValueView[] = [];
  private readonly initializers = new Map<string, { span: FieldSpan; header: TensorHeader }>();
  private readonly tensors = new Map<string, TensorView>();
  private readonly producers = new Map<string, NodeView>();

  constructor(
    private readonly source: Source,
    span: { valueAt: number; endAt: number },
    readonly parent: GraphView | null,
  ) {
    const { bytes } = source;
    this.fields = [];
    // Each field is read as it is met: an initializer's header then shares the file window its
    // key was read through, so listing a model costs about one window per initializer.
    const reader = new MessageReader(bytes, span.valueAt, span.endAt);
    for (let f = reader.nextField(); f; f = reader.nextField()) {
      this.fields.push(f);
      if (f.wireType !== WIRE.bytes) continue;
      if (f.field === 1) this.nodes.push(nodeOf(source, f));
      else if (f.field === 5) {
        const header = tensorHeaderOf(bytes, f);
        this.initializers.set(header.name, { span: f, header });
      } else if (f.field === 11) this.inputs.push(valueOf(bytes, f));
      else if (f.field === 12) this.outputs.push(valueOf(bytes, f));
    }
    for (const node of this.nodes) for (const output of node.outputs) this.producers.set(output, node);
  }

  /** The node of this graph writing `name`, or null (an input, an initializer, an outer value). */
  producerOf(name: string): NodeView | null {
    return this.producers.get(name) ?? null;
  }

  /** Whether `name` is an initializer of this graph itself (not of an enclosing one). */
  hasOwnInitializer(name: string): boolean {
    return this.initializers.has(name);
  }

  /** This graph's own initializers as their headers describe them (no payload read). */
  initializerHeaders(): TensorHeader[] {
    return [...this.initializers.values()].map((initializer) => initializer.header);
  }

  /** The initializer `name` of this graph or an enclosing one, or null. */
  initializer(name: string): TensorView | null {
    const cached = this.tensors.get(name);
    if (cached) return cached;
    const initializer = this.initializers.get(name);
    if (!initializer) return this.parent?.initializer(name) ?? null;
    const tensor = tensorOf(this.source, initializer.span);
    this.tensors.set(name, tensor);
    return tensor;
  }

  /** `name` as a constant: an initializer, or a Constant node's value, in this graph or an enclosing one. */
  constant(name: string): TensorView | null {
    const node = this.producers.get(name);
    if (!node) return this.initializer(name) ?? this.parent?.constant(name) ?? null;
    return node.opType === 'Constant' && node.domain === '' ? this.constantNodeValue(node) : null;
  }

  /** The subgraph in a node's graph attribute (an If branch), seeing this graph's names. */
  subgraph(node: NodeView, attributeName: string): GraphView | null {
    const attribute = node.attributes.get(attributeName);
    return attribute?.kind === 'graph' ? new GraphView(this.source, attribute.spans[0]!, this) : null;
  }

  /** Every subgraph a node holds (If branches, Loop and Scan bodies), in attribute order. */
  subgraphsOf(node: NodeView): GraphView[] {
    return [...node.attributes.values()].flatMap((attribute) =>
      attribute.kind === 'graph' || attribute.kind === 'graphs'
        ? attribute.spans.map((span) => new GraphView(this.source, span, this))
        : [],
    );
  }

  /** A Constant node's value (`value`, or `value_float(s)` / `value_int(s)`) as a tensor. */
  private constantNodeValue(node: NodeView): TensorView | null {
    const value = node.attributes.get('value');
    if (value?.kind === 'tensor')
      return { ...tensorOf(this.source, value.span), name: node.outputs[0] ?? '' };
    return constantListValue(node);
  }
}

/** This graph's nodes and, depth first, every subgraph's: what a whole-model tally walks. */
export function nodesAtAnyDepth(graph: GraphView): NodeView[] {
  return graph.nodes.flatMap((node) => [
    node,
    ...graph.subgraphsOf(node).flatMap((subgraph) => nodesAtAnyDepth(subgraph)),
  ]);
}

/** A model: its main graph, IR version, opset imports (domain → version, '' for the default domain) and fields. */
export interface ModelView {
  graph: GraphView;
  /** 0 when the model declares none. */
  irVersion: number;
  opsets: Map<string, number>;
  /** The model's own fields, in order, and among them its graph's (a rewrite replaces that one). */
  fields: FieldSpan[];
  graphSpan: FieldSpan;
}

/** The default domain's opset version, 0 when none is declared. */
export function defaultOpsetOf(model: ModelView): number {
  return model.opsets.get('') ?? 0;
}

/**
 * Reads a ModelProto's main graph from bytes in memory. External data is looked up by location in
 * `externalData`; throws when the model has no graph or a field is cut short.
 */
export function readModelView(bytes: Uint8Array, externalData: readonly ExternalBytes[] = []): ModelView {
  const external = new Map(externalData.map((file) => [file.path, file.data]));
  const model = modelOf({ bytes: new MemoryBytes(bytes), external });
  if (!model) throw new Error('the model has no graph');
  return model;
}

/**
 * Reads a ModelProto's structure from an open file, payloads unread (they stay in the file);
 * null when it has no graph. Throws `TruncatedProto` when a field runs past the file's end.
 */
export function readModelFile(window: FileWindow): ModelView | null {
  return modelOf({ bytes: window, external: new Map() });
}

function modelOf(source: Source): ModelView | null {
  const { bytes } = source;
  const fields = fieldsOf(bytes);
  let irVersion = 0;
  let graphSpan: FieldSpan | null = null;
  const opsets = new Map<string, number>();
  for (const span of fields) {
    if (span.field === 1 && span.wireType === WIRE.varint) irVersion = varintOf(bytes, span);
    else if (span.field === 7 && span.wireType === WIRE.bytes) graphSpan ??= span;
    else if (span.field === 8 && span.wireType === WIRE.bytes) {
      const { domain, version } = opsetOf(bytes, span);
      if (!opsets.has(domain) || version !== 0) opsets.set(domain, version);
    }
  }
  if (!graphSpan) return null;
  return { graph: new GraphView(source, graphSpan, null), irVersion, opsets, fields, graphSpan };
}

/** OperatorSetIdProto: domain 1 (`ai.onnx` written as ''), version 2 (0 when absent). */
function opsetOf(bytes: ByteSource, span: FieldSpan): { domain: string; version: number } {
  const fields = fieldsOf(bytes, span.valueAt, span.endAt);
  const domain = fields.find((f) => f.field === 1 && f.wireType === WIRE.bytes);
  const version = fields.find((f) => f.field === 2 && f.wireType === WIRE.varint);
  const name = domain ? textOf(bytes, domain) : '';
  return { domain: name === 'ai.onnx' ? '' : name, version: version ? varintOf(bytes, version) : 0 };
}

function nodeOf(source: Source, span: FieldSpan): NodeView {
  const { bytes } = source;
  const node: NodeView = {
    span,
    opType: '',
    domain: '',
    name: '',
    inputs: [],
    outputs: [],
    attributes: new Map(),
  };
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

/** AttributeProto: name 1, f 2, i 3, s 4, t 5, g 6, floats 7, ints 8, graphs 11, type 20. */
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
  if (kind === 'tensor' && first(5)) return [name, { kind, span: first(5)! }];
  if (kind === 'graph' && first(6)) return [name, { kind, spans: [first(6)!] }];
  if (kind === 'graphs') return [name, { kind, spans: byField(11) }];
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
    [11, 'graphs'],
  ];
  return kinds.find(([field]) => fields.some((f) => f.field === field))?.[1] ?? 'other';
}

/** ValueInfoProto → type (2) → tensor_type (1) → elem_type (1), shape (2) → dim (1) → value 1 | param 2. */
function valueOf(bytes: ByteSource, span: FieldSpan): ValueView {
  const value: ValueView = {
    span,
    name: '',
    elemType: 'undefined',
    elemTypeCode: 0,
    dims: [],
    hasShape: false,
  };
  for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
    if (f.field === 1 && f.wireType === WIRE.bytes) value.name = textOf(bytes, f);
    if (f.field !== 2 || f.wireType !== WIRE.bytes) continue;
    const tensorType = fieldsOf(bytes, f.valueAt, f.endAt).find((t) => t.field === 1);
    if (!tensorType) continue;
    for (const t of fieldsOf(bytes, tensorType.valueAt, tensorType.endAt)) {
      if (t.field === 1 && t.wireType === WIRE.varint) {
        value.elemTypeCode = varintOf(bytes, t);
        value.elemType = elementTypeName(value.elemTypeCode);
      }
      if (t.field !== 2 || t.wireType !== WIRE.bytes) continue;
      value.hasShape = true;
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

/** A Constant node's `value_float(s)` / `value_int(s)` as a tensor, null without one. */
function constantListValue(node: NodeView): TensorView | null {
  const name = node.outputs[0] ?? '';
  const asBytes = (array: ArrayBufferView) =>
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (const [key, attribute] of node.attributes) {
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
