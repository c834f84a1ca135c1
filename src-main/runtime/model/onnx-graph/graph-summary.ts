/**
 * What listing keeps of an ONNX file, derived from its graph model (graph-view.ts) read through a
 * file window: a 1 GB model costs a few small reads, since no tensor payload is ever read.
 */
import { FileWindow } from './proto-reader';
import { readModelFile } from './graph-view';
import type { GraphView, ModelView, NodeView, TensorInfo } from './graph-view';
import { ELEMENT_BYTES } from './element-types';

/** An external data reference: the file (as written in the model) and the bytes the model needs from it. */
export interface ExternalRef {
  location: string;
  /** Largest offset + length over the tensors stored there. */
  neededBytes: number;
}

/** What listing needs from an ONNX file, read without loading tensor payloads. */
export interface GraphSummary {
  fileBytes: number;
  irVersion: number;
  opsets: Array<{ domain: string; version: number }>;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  /** Operator counts by `domain:opType` (default domain written as ''), subgraphs included. */
  ops: Map<string, number>;
  /** Initializer bytes by storage kind: an element type, or `int4`/`int8` for MatMulNBits weights. */
  weightBytes: Map<string, number>;
  /** Weights (initializer elements; a 4-bit MatMulNBits byte counts as two). */
  numParams: number;
  external: ExternalRef[];
  /**
   * Nodes one forward runs: the main graph's, a node with subgraphs (If) counted as itself plus
   * its largest one. Of an optimized graph (the graph cache's), what ONNX Runtime runs per step.
   */
  numStepNodes: number;
}

/** Reads an ONNX file's structure; throws `TruncatedProto` when it ends early, Error when it is not a model. */
export function readGraphSummary(file: string): GraphSummary {
  const window = new FileWindow(file);
  try {
    if (window.size === 0) throw new Error('is empty (0 bytes)');
    const model = readModelFile(window);
    if (!model || model.irVersion === 0) throw new Error('is not an ONNX model (no graph or IR version)');
    return summaryOf(model, window.size);
  } finally {
    window.close();
  }
}

function summaryOf(model: ModelView, fileBytes: number): GraphSummary {
  const graphs = graphsAtAnyDepth(model.graph);
  const nodes = graphs.flatMap((graph) => graph.nodes);
  const ops = new Map<string, number>();
  for (const node of nodes) {
    const key = `${node.domain}:${node.opType}`;
    ops.set(key, (ops.get(key) ?? 0) + 1);
  }
  const weights = tallyWeights(graphs, quantizedBits(nodes));
  return {
    fileBytes,
    irVersion: model.irVersion,
    opsets: [...model.opsets].map(([domain, version]) => ({ domain, version })),
    inputs: model.graph.inputs.map(tensorInfoOf),
    outputs: model.graph.outputs.map(tensorInfoOf),
    ops,
    weightBytes: weights.weightBytes,
    numParams: weights.numParams,
    external: [...weights.external].map(([location, neededBytes]) => ({ location, neededBytes })),
    numStepNodes: numStepNodesOf(model.graph),
  };
}

function tensorInfoOf(value: TensorInfo): TensorInfo {
  return { name: value.name, elemType: value.elemType, dims: value.dims };
}

/** The graph and, depth first, every subgraph inside it. */
function graphsAtAnyDepth(graph: GraphView): GraphView[] {
  return [graph, ...graph.nodes.flatMap((node) => graph.subgraphsOf(node).flatMap(graphsAtAnyDepth))];
}

/** Nodes one forward runs: each node, plus its largest subgraph's (an If runs one branch). */
function numStepNodesOf(graph: GraphView): number {
  let numStepNodes = 0;
  for (const node of graph.nodes) {
    const subgraphs = graph.subgraphsOf(node).map(numStepNodesOf);
    numStepNodes += 1 + Math.max(0, ...subgraphs);
  }
  return numStepNodes;
}

/** Initializers read by a quantized node, by name: the bits of its codes, and of its scales and zero points. */
interface QuantizedBits {
  codes: Map<string, number>;
  aux: Map<string, number>;
}

/** The MatMulNBits/GatherBlockQuantized nodes' codes (counted by bits), scales and zero points. */
function quantizedBits(nodes: NodeView[]): QuantizedBits {
  const bits: QuantizedBits = { codes: new Map(), aux: new Map() };
  for (const node of nodes) {
    const codesAt = node.opType === 'MatMulNBits' ? 1 : node.opType === 'GatherBlockQuantized' ? 0 : -1;
    const codes = node.inputs[codesAt];
    if (codesAt < 0 || !codes) continue;
    const attribute = node.attributes.get('bits');
    const numBits = attribute?.kind === 'int' ? attribute.value : 4;
    bits.codes.set(codes, numBits);
    for (const aux of node.inputs.slice(2, 4)) if (aux) bits.aux.set(aux, numBits);
  }
  return bits;
}

/** Weight bytes by storage kind, weights (a 4-bit code byte counts as two) and external data's extent. */
function tallyWeights(graphs: GraphView[], quantized: QuantizedBits) {
  const weightBytes = new Map<string, number>();
  const external = new Map<string, number>();
  let numParams = 0;
  for (const header of graphs.flatMap((graph) => graph.initializerHeaders())) {
    const numElements = header.dims.reduce((a, b) => a * b, 1);
    const numBytes = numElements * (ELEMENT_BYTES[header.elemType] ?? 1);
    const bits = quantized.codes.get(header.name);
    const auxBits = quantized.aux.get(header.name);
    if (auxBits === undefined) numParams += bits === undefined ? numElements : (numBytes * 8) / bits;
    const kind = (bits ?? auxBits) === undefined ? header.elemType : `int${bits ?? auxBits}`;
    weightBytes.set(kind, (weightBytes.get(kind) ?? 0) + numBytes);
    if (!header.external) continue;
    const location = header.external.get('location') ?? '';
    const end =
      Number(header.external.get('offset') ?? 0) + Number(header.external.get('length') ?? numBytes);
    external.set(location, Math.max(external.get(location) ?? 0, end));
  }
  return { weightBytes, numParams, external };
}
