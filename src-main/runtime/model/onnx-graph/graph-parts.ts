/**
 * The parts of an in-memory ONNX model a graph rewrite needs: the top-level graph's nodes (with
 * their spans), initializer and input names, outputs, the default opset, and every tensor name a
 * node reads (subgraph bodies included, since they may read outer tensors by name).
 */
import { WIRE } from './proto-reader';
import { fieldsOf, textOf, varintOf } from './proto-bytes';
import type { FieldSpan } from './proto-bytes';

/** One top-level node: where it sits and what it reads and writes. */
export interface NodeParts {
  span: FieldSpan;
  opType: string;
  /** '' for the default domain (also written `ai.onnx`). */
  domain: string;
  inputs: string[];
  outputs: string[];
}

/** One top-level graph output: where it sits, its name, element type (ONNX number) and rank (null: no shape declared). */
export interface OutputParts {
  span: FieldSpan;
  name: string;
  elemType: number;
  rank: number | null;
}

/** What a rewrite reads from a model's bytes. */
export interface ModelParts {
  modelFields: FieldSpan[];
  graphSpan: FieldSpan;
  graphFields: FieldSpan[];
  nodes: NodeParts[];
  initializers: Set<string>;
  inputs: Set<string>;
  outputs: OutputParts[];
  /** How many times each tensor is read by a node, at any depth. */
  numReads: Map<string, number>;
  /** Every node's op type, at any depth (subgraph bodies included). */
  opTypes: Set<string>;
  /** The default domain's opset version, 0 when none is declared. */
  defaultOpset: number;
}

const GRAPH = { node: 1, initializer: 5, input: 11, output: 12 } as const;
const NODE = { input: 1, output: 2, opType: 4, attribute: 5, domain: 7 } as const;

/** Reads the parts of `bytes` (a ModelProto); throws when it has no graph or a field is cut short. */
export function modelPartsOf(bytes: Uint8Array): ModelParts {
  const modelFields = fieldsOf(bytes);
  const graphSpan = modelFields.find((f) => f.field === 7 && f.wireType === WIRE.bytes);
  if (!graphSpan) throw new Error('the model has no graph');
  const graphFields = fieldsOf(bytes, graphSpan.valueAt, graphSpan.endAt);
  const parts: ModelParts = {
    modelFields,
    graphSpan,
    graphFields,
    nodes: [],
    initializers: new Set(),
    inputs: new Set(),
    outputs: [],
    numReads: new Map(),
    opTypes: new Set(),
    defaultOpset: defaultOpsetOf(bytes, modelFields),
  };
  for (const span of graphFields) {
    if (span.wireType !== WIRE.bytes) continue;
    if (span.field === GRAPH.node) parts.nodes.push(nodeOf(bytes, span, parts));
    else if (span.field === GRAPH.initializer) parts.initializers.add(nameOf(bytes, span, 8));
    else if (span.field === GRAPH.input) parts.inputs.add(nameOf(bytes, span, 1));
    else if (span.field === GRAPH.output)
      parts.outputs.push({ span, name: nameOf(bytes, span, 1), ...tensorTypeOf(bytes, span) });
  }
  return parts;
}

function defaultOpsetOf(bytes: Uint8Array, modelFields: FieldSpan[]): number {
  for (const span of modelFields) {
    if (span.field !== 8 || span.wireType !== WIRE.bytes) continue;
    const fields = fieldsOf(bytes, span.valueAt, span.endAt);
    const domain = fields.find((f) => f.field === 1);
    const version = fields.find((f) => f.field === 2 && f.wireType === WIRE.varint);
    const name = domain ? textOf(bytes, domain) : '';
    if ((name === '' || name === 'ai.onnx') && version) return varintOf(bytes, version);
  }
  return 0;
}

/** Where nodeOf tallies what every node reads and is, at any depth. */
type Tally = Pick<ModelParts, 'numReads' | 'opTypes'>;

function nodeOf(bytes: Uint8Array, span: FieldSpan, tally: Tally): NodeParts {
  const node: NodeParts = { span, opType: '', domain: '', inputs: [], outputs: [] };
  for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
    if (f.wireType !== WIRE.bytes) continue;
    if (f.field === NODE.input) node.inputs.push(textOf(bytes, f));
    else if (f.field === NODE.output) node.outputs.push(textOf(bytes, f));
    else if (f.field === NODE.opType) node.opType = textOf(bytes, f);
    else if (f.field === NODE.domain) node.domain = textOf(bytes, f) === 'ai.onnx' ? '' : textOf(bytes, f);
    else if (f.field === NODE.attribute) tallySubgraphs(bytes, f, tally);
  }
  for (const name of node.inputs) if (name) tally.numReads.set(name, (tally.numReads.get(name) ?? 0) + 1);
  tally.opTypes.add(node.opType);
  return node;
}

/** Tallies the nodes inside an attribute's subgraphs (If/Loop/Scan bodies). */
function tallySubgraphs(bytes: Uint8Array, attribute: FieldSpan, tally: Tally): void {
  for (const f of fieldsOf(bytes, attribute.valueAt, attribute.endAt)) {
    if ((f.field !== 6 && f.field !== 11) || f.wireType !== WIRE.bytes) continue;
    for (const g of fieldsOf(bytes, f.valueAt, f.endAt))
      if (g.field === GRAPH.node && g.wireType === WIRE.bytes) nodeOf(bytes, g, tally);
  }
}

function nameOf(bytes: Uint8Array, span: FieldSpan, field: number): string {
  const name = fieldsOf(bytes, span.valueAt, span.endAt).find((f) => f.field === field);
  return name ? textOf(bytes, name) : '';
}

/** ValueInfoProto → type (2) → tensor_type (1) → elem_type (1) and shape (2) → dim (1) count. */
function tensorTypeOf(bytes: Uint8Array, span: FieldSpan): { elemType: number; rank: number | null } {
  let fields = fieldsOf(bytes, span.valueAt, span.endAt);
  for (const field of [2, 1]) {
    const inner = fields.find((f) => f.field === field && f.wireType === WIRE.bytes);
    if (!inner) return { elemType: 0, rank: null };
    fields = fieldsOf(bytes, inner.valueAt, inner.endAt);
  }
  const elemType = fields.find((f) => f.field === 1 && f.wireType === WIRE.varint);
  const shape = fields.find((f) => f.field === 2 && f.wireType === WIRE.bytes);
  return {
    elemType: elemType ? varintOf(bytes, elemType) : 0,
    rank: shape ? fieldsOf(bytes, shape.valueAt, shape.endAt).filter((f) => f.field === 1).length : null,
  };
}
