import { FileWindow, MessageReader, WIRE } from './proto-reader';
import { elementTypeName, ELEMENT_BYTES } from './element-types';

/** A graph input or output: name, element type (ONNX name, e.g. `float16`) and dims (number, symbol or unknown). */
export interface TensorInfo {
  name: string;
  elemType: string;
  dims: Array<number | string | null>;
}

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
    return readModel(window);
  } finally {
    window.close();
  }
}

interface Collect {
  ops: Map<string, number>;
  /** Initializer name → the bits of the MatMulNBits/GatherBlockQuantized reading it as its codes. */
  quantizedInputs: Map<string, number>;
  /** Initializer name → those nodes' bits, for their scales and zero points (counted with the codes). */
  quantizedAux: Map<string, number>;
  weightBytes: Map<string, number>;
  numParams: number;
  external: Map<string, number>;
}

function readModel(window: FileWindow): GraphSummary {
  if (window.size === 0) throw new Error('is empty (0 bytes)');
  const model = new MessageReader(window, 0, window.size);
  const collect: Collect = {
    ops: new Map(),
    quantizedInputs: new Map(),
    quantizedAux: new Map(),
    weightBytes: new Map(),
    numParams: 0,
    external: new Map(),
  };
  const summary: GraphSummary = {
    fileBytes: window.size,
    irVersion: 0,
    opsets: [],
    inputs: [],
    outputs: [],
    ops: collect.ops,
    weightBytes: collect.weightBytes,
    numParams: 0,
    external: [],
    numStepNodes: 0,
  };
  let hasGraph = false;
  for (let header = model.next(); header; header = model.next()) {
    if (header.field === 1 && header.wireType === WIRE.varint) summary.irVersion = model.varint();
    else if (header.field === 7 && header.wireType === WIRE.bytes) {
      hasGraph = true;
      const io = readGraph(model.message(), collect);
      summary.inputs = io.inputs;
      summary.outputs = io.outputs;
      summary.numStepNodes = io.numStepNodes;
    } else if (header.field === 8 && header.wireType === WIRE.bytes)
      summary.opsets.push(readOpset(model.message()));
    else model.skip(header.wireType);
  }
  if (!hasGraph || summary.irVersion === 0) throw new Error('is not an ONNX model (no graph or IR version)');
  summary.numParams = collect.numParams;
  summary.external = [...collect.external].map(([location, neededBytes]) => ({ location, neededBytes }));
  return summary;
}

function readOpset(reader: MessageReader): { domain: string; version: number } {
  const opset = { domain: '', version: 0 };
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field === 1 && h.wireType === WIRE.bytes) opset.domain = reader.text();
    else if (h.field === 2 && h.wireType === WIRE.varint) opset.version = reader.varint();
    else reader.skip(h.wireType);
  }
  return opset;
}

interface GraphParts {
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  numStepNodes: number;
}

function readGraph(reader: MessageReader, collect: Collect): GraphParts {
  const inputs: TensorInfo[] = [];
  const outputs: TensorInfo[] = [];
  let numStepNodes = 0;
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.wireType !== WIRE.bytes) reader.skip(h.wireType);
    else if (h.field === 1) numStepNodes += readNode(reader.message(), collect);
    else if (h.field === 5) readInitializer(reader.message(), collect);
    else if (h.field === 11) inputs.push(readValueInfo(reader.message()));
    else if (h.field === 12) outputs.push(readValueInfo(reader.message()));
    else reader.skip(h.wireType);
  }
  return { inputs, outputs, numStepNodes };
}

/** Tallies one node; returns the nodes it runs per step (itself, plus its largest subgraph's). */
function readNode(reader: MessageReader, collect: Collect): number {
  const inputs: string[] = [];
  let opType = '';
  let domain = '';
  let bits = 4;
  let numSubgraphNodes = 0;
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field === 1 && h.wireType === WIRE.bytes) inputs.push(reader.text());
    else if (h.field === 4 && h.wireType === WIRE.bytes) opType = reader.text();
    else if (h.field === 7 && h.wireType === WIRE.bytes) domain = reader.text();
    else if (h.field === 5 && h.wireType === WIRE.bytes) {
      const attribute = readAttribute(reader.message(), collect);
      bits = attribute.bits ?? bits;
      numSubgraphNodes = Math.max(numSubgraphNodes, attribute.numStepNodes);
    } else reader.skip(h.wireType);
  }
  const key = `${domain === 'ai.onnx' ? '' : domain}:${opType}`;
  collect.ops.set(key, (collect.ops.get(key) ?? 0) + 1);
  const codesAt = opType === 'MatMulNBits' ? 1 : opType === 'GatherBlockQuantized' ? 0 : -1;
  if (codesAt >= 0 && inputs[codesAt]) {
    collect.quantizedInputs.set(inputs[codesAt], bits);
    for (const aux of inputs.slice(2, 4)) if (aux) collect.quantizedAux.set(aux, bits);
  }
  return 1 + numSubgraphNodes;
}

/**
 * Reads an attribute: recurses into subgraphs (If/Loop bodies); its value when it is `bits`, and
 * the step nodes of its largest subgraph (0 without one).
 */
function readAttribute(
  reader: MessageReader,
  collect: Collect,
): { bits: number | null; numStepNodes: number } {
  let name = '';
  let intValue: number | null = null;
  let numStepNodes = 0;
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field === 1 && h.wireType === WIRE.bytes) name = reader.text();
    else if (h.field === 3 && h.wireType === WIRE.varint) intValue = reader.signedVarint();
    else if ((h.field === 6 || h.field === 11) && h.wireType === WIRE.bytes)
      numStepNodes = Math.max(numStepNodes, readGraph(reader.message(), collect).numStepNodes);
    else reader.skip(h.wireType);
  }
  return { bits: name === 'bits' ? intValue : null, numStepNodes };
}

function readInitializer(reader: MessageReader, collect: Collect): void {
  const dims: number[] = [];
  let dataType = 0;
  let name = '';
  let isExternal = false;
  const entries = new Map<string, string>();
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field === 1 && h.wireType === WIRE.varint) dims.push(reader.signedVarint());
    else if (h.field === 1 && h.wireType === WIRE.bytes) dims.push(...reader.packedVarints());
    else if (h.field === 2 && h.wireType === WIRE.varint) dataType = reader.varint();
    else if (h.field === 8 && h.wireType === WIRE.bytes) name = reader.text();
    else if (h.field === 14 && h.wireType === WIRE.varint) isExternal = reader.varint() === 1;
    else if (h.field === 13 && h.wireType === WIRE.bytes) {
      const entry = readEntry(reader.message());
      entries.set(entry.key, entry.value);
    } else reader.skip(h.wireType);
  }
  const elemType = elementTypeName(dataType);
  const numElements = dims.reduce((a, b) => a * b, 1);
  const numBytes = numElements * (ELEMENT_BYTES[elemType] ?? 1);
  const bits = collect.quantizedInputs.get(name);
  const auxBits = collect.quantizedAux.get(name);
  if (auxBits === undefined) collect.numParams += bits === undefined ? numElements : (numBytes * 8) / bits;
  const kind = (bits ?? auxBits) === undefined ? elemType : `int${bits ?? auxBits}`;
  collect.weightBytes.set(kind, (collect.weightBytes.get(kind) ?? 0) + numBytes);
  if (!isExternal) return;
  const location = entries.get('location') ?? '';
  const end = Number(entries.get('offset') ?? 0) + Number(entries.get('length') ?? numBytes);
  collect.external.set(location, Math.max(collect.external.get(location) ?? 0, end));
}

function readEntry(reader: MessageReader): { key: string; value: string } {
  const entry = { key: '', value: '' };
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field === 1 && h.wireType === WIRE.bytes) entry.key = reader.text();
    else if (h.field === 2 && h.wireType === WIRE.bytes) entry.value = reader.text();
    else reader.skip(h.wireType);
  }
  return entry;
}

function readValueInfo(reader: MessageReader): TensorInfo {
  const info: TensorInfo = { name: '', elemType: 'undefined', dims: [] };
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field === 1 && h.wireType === WIRE.bytes) info.name = reader.text();
    else if (h.field === 2 && h.wireType === WIRE.bytes) readType(reader.message(), info);
    else reader.skip(h.wireType);
  }
  return info;
}

/** TypeProto → tensor_type (1) → elem_type (1), shape (2) → dim (1) → dim_value (1) | dim_param (2). */
function readType(reader: MessageReader, info: TensorInfo): void {
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field !== 1 || h.wireType !== WIRE.bytes) {
      reader.skip(h.wireType);
      continue;
    }
    const tensor = reader.message();
    for (let t = tensor.next(); t; t = tensor.next()) {
      if (t.field === 1 && t.wireType === WIRE.varint) info.elemType = elementTypeName(tensor.varint());
      else if (t.field === 2 && t.wireType === WIRE.bytes) info.dims = readShape(tensor.message());
      else tensor.skip(t.wireType);
    }
  }
}

function readShape(reader: MessageReader): Array<number | string | null> {
  const dims: Array<number | string | null> = [];
  for (let h = reader.next(); h; h = reader.next()) {
    if (h.field !== 1 || h.wireType !== WIRE.bytes) {
      reader.skip(h.wireType);
      continue;
    }
    const dim = reader.message();
    let value: number | string | null = null;
    for (let d = dim.next(); d; d = dim.next()) {
      if (d.field === 1 && d.wireType === WIRE.varint) value = dim.signedVarint();
      else if (d.field === 2 && d.wireType === WIRE.bytes) value = dim.text();
      else dim.skip(d.wireType);
    }
    dims.push(value);
  }
  return dims;
}
