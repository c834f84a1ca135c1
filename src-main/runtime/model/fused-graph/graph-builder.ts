// A small ONNX graph builder over onnx-proto: nodes with generated unique
// output names (default domain or com.microsoft), initializers from raw little-endian bytes (no
// per-element JS arrays), typed inputs/outputs with symbolic dims, and model encoding.

import { endianness } from 'node:os';
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { ELEMENT_BYTES, ELEMENT_TYPE_CODE } from '../onnx-graph/element-types';

const { onnx } = onnxProto;

/** Element types this builder writes (ONNX TensorProto.DataType names, lower-case). */
export type ElementType = 'float32' | 'float16' | 'bfloat16' | 'int64' | 'int32' | 'uint8' | 'int8' | 'bool';

/** A dimension: a fixed size or a symbolic name (dim_param). */
export type Dim = number | string;

/**
 * Node attributes: a number is an INT, a number[] an INTS, `{ float }` a FLOAT, `{ graph }` a GRAPH
 * (an If branch).
 */
export type Attributes = Record<string, number | number[] | { float: number } | { graph: Onnx.IGraphProto }>;

/** ONNX TensorProto.DataType codes for ElementType (Cast's `to` takes these; see element-types.ts). */
export const ONNX_TYPE_CODE: Readonly<Record<ElementType, number>> = ELEMENT_TYPE_CODE;

/**
 * Where initializers' bytes go when a graph is written with external data: a file beside the
 * graph, named `location` in each initializer (external-data.ts writes one).
 */
export interface ExternalDataSink {
  location: string;
  /** Writes the bytes and returns their offset in the data file. */
  write(bytes: Uint8Array): number;
}

/** Initializers smaller than this stay inside the graph even when it has external data (constants, small norms). */
export const MIN_EXTERNAL_BYTES = 1024;

/** ONNX Runtime's contrib operators' domain (MatMulNBits, GroupQueryAttention, …). */
export const MS_DOMAIN = 'com.microsoft';

if (endianness() !== 'LE')
  throw new Error('the graph builder writes raw_data from typed arrays and needs a little-endian host');

function valueInfo(name: string, type: ElementType, dims: Dim[]): Onnx.IValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType: ONNX_TYPE_CODE[type], shape: { dim } } } };
}

function attribute(name: string, value: Attributes[string]): Onnx.IAttributeProto {
  const { INT, INTS, FLOAT, GRAPH } = onnx.AttributeProto.AttributeType;
  if (typeof value === 'object' && 'float' in value) return { name, type: FLOAT, f: value.float };
  if (typeof value === 'object' && 'graph' in value) return { name, type: GRAPH, g: value.graph };
  return Array.isArray(value) ? { name, type: INTS, ints: value } : { name, type: INT, i: value };
}

/** Builds one GraphProto; call `encodeModel` once at the end. */
export class GraphBuilder {
  private readonly nodes: Onnx.INodeProto[] = [];
  private readonly initializers: Onnx.ITensorProto[] = [];
  private readonly inputs: Onnx.IValueInfoProto[] = [];
  private readonly outputs: Onnx.IValueInfoProto[] = [];
  private readonly usedNames = new Set<string>();
  private numGenerated = 0;
  private usesMsDomain = false;
  /** Prefix for generated value names, e.g. `/layers.3/attn` (readability only). */
  scope = '';

  /**
   * `namePrefix` keeps the generated names of sibling subgraphs (If branches) apart; with
   * `external`, each initializer of MIN_EXTERNAL_BYTES or more is written there at once and the
   * graph keeps only where it lies, so the graph never holds the weights.
   */
  constructor(
    private readonly namePrefix = '',
    private readonly external: ExternalDataSink | null = null,
  ) {}

  private claim(name: string): string {
    if (this.usedNames.has(name)) throw new Error(`GraphBuilder: value name ${name} used twice`);
    this.usedNames.add(name);
    return name;
  }

  private generatedName(hint: string): string {
    this.numGenerated += 1;
    return `${this.namePrefix}${this.scope}/${hint}_${this.numGenerated}`;
  }

  /** Declares a graph input. */
  addInput(name: string, type: ElementType, dims: Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), type, dims));
    return name;
  }

  /** Declares a graph output; some node must produce `name`. */
  addOutput(name: string, type: ElementType, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** Adds an initializer from little-endian bytes (byte length must match dims × element size). */
  addInitializer(name: string, type: ElementType, dims: number[], rawBytes: Uint8Array): string {
    const expectedBytes = dims.reduce((a, b) => a * b, 1) * ELEMENT_BYTES[type];
    if (rawBytes.byteLength !== expectedBytes) {
      throw new Error(`initializer ${name}: ${rawBytes.byteLength} bytes for [${dims}] ${type}`);
    }
    const tensor: Onnx.ITensorProto = { name: this.claim(name), dataType: ONNX_TYPE_CODE[type], dims };
    if (this.external && rawBytes.byteLength >= MIN_EXTERNAL_BYTES) {
      const offset = this.external.write(rawBytes);
      tensor.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
      tensor.externalData = [
        { key: 'location', value: this.external.location },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(rawBytes.byteLength) },
      ];
    } else tensor.rawData = rawBytes;
    this.initializers.push(tensor);
    return name;
  }

  /** Adds a float32 constant initializer (dims default to [values.length]; [] for a scalar). */
  addFloatConstant(
    nameHint: string,
    values: number[] | Float32Array,
    dims: number[] = [values.length],
  ): string {
    const data = values instanceof Float32Array ? values : Float32Array.from(values);
    return this.addInitializer(
      this.generatedName(nameHint),
      'float32',
      dims,
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    );
  }

  /** Adds an int64 constant initializer (dims default to [values.length]; [] for a scalar). */
  addInt64Constant(nameHint: string, values: number[], dims: number[] = [values.length]): string {
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    return this.addInitializer(this.generatedName(nameHint), 'int64', dims, new Uint8Array(data.buffer));
  }

  /**
   * Adds a node; returns its output names (generated unless `outputNames` are given; an empty
   * name leaves that optional output off). `domain` is '' or MS_DOMAIN.
   */
  addNode(
    opType: string,
    inputs: string[],
    attributes: Attributes = {},
    numOutputs = 1,
    outputNames?: string[],
    domain = '',
  ): string[] {
    const names = outputNames ?? Array.from({ length: numOutputs }, () => this.generatedName(opType));
    const outputs = names.map((n) => (n === '' ? n : this.claim(n)));
    const attribute_ = Object.entries(attributes).map(([key, value]) => attribute(key, value));
    if (domain === MS_DOMAIN) this.usesMsDomain = true;
    this.nodes.push({
      opType,
      ...(domain ? { domain } : {}),
      input: inputs,
      output: outputs,
      name: `${outputs[0]}_node`,
      attribute: attribute_,
    });
    return outputs;
  }

  /** Adds a single-output com.microsoft node and returns its output name. */
  msOp(opType: string, inputs: string[], attributes: Attributes = {}, outputName?: string): string {
    return this.addNode(opType, inputs, attributes, 1, outputName ? [outputName] : undefined, MS_DOMAIN)[0]!;
  }

  /** Adds a single-output node and returns its output name (`outputName` to fix it). */
  op(opType: string, inputs: string[], attributes: Attributes = {}, outputName?: string): string {
    return this.addNode(opType, inputs, attributes, 1, outputName ? [outputName] : undefined)[0]!;
  }

  /** The graph built so far (a subgraph for an If branch, or the main graph). */
  toGraph(graphName: string): Onnx.IGraphProto {
    return {
      name: graphName,
      node: this.nodes,
      initializer: this.initializers,
      input: this.inputs,
      output: this.outputs,
    };
  }

  /** Encodes the graph as a ModelProto (IR 8, default-domain opset `opsetVersion`). */
  encodeModel(graphName: string, opsetVersion: number, producerName = 'first-frame'): Uint8Array {
    const graph = this.toGraph(graphName);
    const model: Onnx.IModelProto = {
      irVersion: 8,
      producerName,
      producerVersion: '1',
      opsetImport: [
        { domain: '', version: opsetVersion },
        ...(this.usesMsDomain ? [{ domain: MS_DOMAIN, version: 1 }] : []),
      ],
      graph,
    };
    return onnx.ModelProto.encode(model).finish();
  }
}
