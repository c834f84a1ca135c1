import type { ModelShape } from './config';
import type { GraphSummary } from './onnx-graph/graph-summary';
import type { TensorInfo } from './onnx-graph/graph-view';
import { unknownOpReason } from './onnx-graph/known-ops';
import { SHORT_WEIGHT_NAMES } from './onnx-graph/element-types';
import {
  GRAPH_IO,
  LENGTH_INPUTS,
  LOGITS_TO_KEEP_INPUTS,
  numPastLayersOf,
  pastName,
  pastOf,
  presentName,
} from './graph-io-names';

/** Element types of K/V and logits the engine feeds and reads. */
export type FloatType = 'float32' | 'float16';

/**
 * Where a batch row's tokens sit in its K/V columns: `end`, left-padded to end at one shared
 * column (masked attention over an attention_mask); `start`, from column 0 with each row its own
 * length (GroupQueryAttention, whose CPU kernel assumes no padding before a row's tokens).
 */
export type KvRowAlignment = 'end' | 'start';

/**
 * How one ONNX decoder graph is fed, read from its inputs and outputs: which optional inputs it
 * has and the element types of its past K/V and logits. Travels to the slot worker with the load.
 */
export interface DecoderIo {
  /** Past and present K/V element type (fp16 past is stored as fp16 bits end to end). */
  kvDtype: FloatType;
  logitsDtype: FloatType;
  /** False: the graph derives positions from attention_mask itself. */
  hasPositionIds: boolean;
  /** `num_logits_to_keep` or `logits_to_keep` when the graph can compute the last row(s) only. */
  logitsToKeepInput: (typeof LOGITS_TO_KEEP_INPUTS)[number] | null;
  /** Merged decoders (`decoder_model_merged.onnx`): true when a past is fed. */
  hasUseCacheBranch: boolean;
  /** How rows sit in the past's columns: `start` for graphs that run GroupQueryAttention. */
  kvRows: KvRowAlignment;
  /**
   * The graph takes GroupQueryAttention's own lengths (`seqlens_k` int32 [rows],
   * `total_sequence_length` int32 scalar) instead of an attention_mask (the fused form).
   */
  hasLengthInputs: boolean;
}

/** Every input but the past that some graph is fed; a graph taking any other is refused. */
const FEEDABLE_INPUTS: ReadonlySet<string> = new Set([
  GRAPH_IO.inputIds,
  GRAPH_IO.attentionMask,
  ...LENGTH_INPUTS,
  GRAPH_IO.positionIds,
  GRAPH_IO.useCacheBranch,
  ...LOGITS_TO_KEEP_INPUTS,
]);

/** A graph that does not fit the decoder contract; the message names the input, output or field. */
export class GraphContractError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GraphContractError';
  }
}

/**
 * Checks a graph against the config's geometry and the engine's feeds and returns how to feed it.
 * Throws GraphContractError with one clear problem: unknown operator, wrong element type,
 * missing input/output, layers/heads/head dim/vocabulary disagreeing with config.json.
 */
export function decoderIoOf(graph: GraphSummary, shape: ModelShape, tokenizerVocab: number): DecoderIo {
  for (const key of graph.ops.keys()) {
    const [domain, opType] = splitOp(key);
    const reason = unknownOpReason(domain, opType);
    if (reason) throw new GraphContractError(reason);
  }
  const inputs = new Map(graph.inputs.map((t) => [t.name, t]));
  const outputs = new Map(graph.outputs.map((t) => [t.name, t]));
  const feeds: FedInputs = {
    hasLengthInputs: inputs.has(LENGTH_INPUTS[0]),
    hasPositionIds: inputs.has(GRAPH_IO.positionIds),
    logitsToKeepInput: LOGITS_TO_KEEP_INPUTS.find((name) => inputs.has(name)) ?? null,
    hasUseCacheBranch: inputs.has(GRAPH_IO.useCacheBranch),
  };
  const missing = missingIoOf(inputs.keys(), outputs.keys(), fedInputsOf(feeds), shape.numLayers);
  if (missing) throw new GraphContractError(missing);
  expectInput(inputs, GRAPH_IO.inputIds, ['int64']);
  if (feeds.hasLengthInputs) for (const name of LENGTH_INPUTS) expectInput(inputs, name, ['int32']);
  else expectInput(inputs, GRAPH_IO.attentionMask, ['int64']);
  if (feeds.hasPositionIds) expectInput(inputs, GRAPH_IO.positionIds, ['int64']);
  if (feeds.hasUseCacheBranch) expectInput(inputs, GRAPH_IO.useCacheBranch, ['bool']);
  if (feeds.logitsToKeepInput) expectInput(inputs, feeds.logitsToKeepInput, ['int64']);
  for (const name of inputs.keys())
    if (!FEEDABLE_INPUTS.has(name) && !pastOf(name))
      throw new GraphContractError(`graph input "${name}" is not one First Frame feeds`);
  const logits = outputs.get(GRAPH_IO.logits)!;
  const logitsDtype = floatType(logits, 'output');
  checkVocab(logits, shape, tokenizerVocab);
  const kvDtype = checkPast(inputs, shape);
  return {
    ...feeds,
    kvDtype,
    logitsDtype,
    kvRows: graph.ops.has('com.microsoft:GroupQueryAttention') ? 'start' : 'end',
  };
}

/** Which optional inputs a graph is fed (the DecoderIo fields the fed names follow from). */
export type FedInputs = Pick<
  DecoderIo,
  'hasLengthInputs' | 'hasPositionIds' | 'logitsToKeepInput' | 'hasUseCacheBranch'
>;

/** Every input the engine feeds a graph with these optional inputs, besides the past. */
export function fedInputsOf(feeds: FedInputs): string[] {
  const fed: string[] = [
    GRAPH_IO.inputIds,
    ...(feeds.hasLengthInputs ? LENGTH_INPUTS : [GRAPH_IO.attentionMask]),
  ];
  if (feeds.hasPositionIds) fed.push(GRAPH_IO.positionIds);
  if (feeds.logitsToKeepInput) fed.push(feeds.logitsToKeepInput);
  if (feeds.hasUseCacheBranch) fed.push(GRAPH_IO.useCacheBranch);
  return fed;
}

/**
 * The graph contract's name check, the one both listing (decoderIoOf) and a slot's session build
 * (graphProblem) run: the first of `fed`, logits, and each layer's past and present that the
 * graph's names lack, or the layer count disagreeing with config.json; null when all are there.
 */
export function missingIoOf(
  inputNames: Iterable<string>,
  outputNames: Iterable<string>,
  fed: readonly string[],
  numLayers: number,
): string | null {
  const inputs = new Set(inputNames);
  const outputs = new Set(outputNames);
  for (const name of fed) if (!inputs.has(name)) return `graph has no input "${name}"`;
  if (!outputs.has(GRAPH_IO.logits)) return `graph has no output "${GRAPH_IO.logits}"`;
  const numPastLayers = numPastLayersOf(inputs);
  if (numPastLayers !== numLayers)
    return `graph has ${numPastLayers} layers of past_key_values but config.json num_hidden_layers is ${numLayers}`;
  for (let layer = 0; layer < numLayers; layer++)
    for (const kind of ['key', 'value'] as const) {
      if (!inputs.has(pastName(layer, kind))) return `graph has no input "${pastName(layer, kind)}"`;
      if (!outputs.has(presentName(layer, kind))) return `graph has no output "${presentName(layer, kind)}"`;
    }
  return null;
}

function splitOp(key: string): [string, string] {
  const colon = key.lastIndexOf(':');
  return [key.slice(0, colon), key.slice(colon + 1)];
}

function expectInput(inputs: Map<string, TensorInfo>, name: string, types: string[]): void {
  const input = inputs.get(name);
  if (!input) throw new GraphContractError(`graph has no input "${name}"`);
  if (!types.includes(input.elemType))
    throw new GraphContractError(
      `graph input "${name}" is ${input.elemType}; First Frame feeds ${types.join(' or ')}`,
    );
}

function floatType(tensor: TensorInfo, kind: 'input' | 'output'): FloatType {
  if (tensor.elemType === 'float32' || tensor.elemType === 'float16') return tensor.elemType;
  throw new GraphContractError(
    `graph ${kind} "${tensor.name}" is ${tensor.elemType}; First Frame handles float32 or float16 here`,
  );
}

function checkVocab(logits: TensorInfo, shape: ModelShape, tokenizerVocab: number): void {
  const width = logits.dims.at(-1);
  if (typeof width !== 'number') return; // symbolic: the graph cannot disagree before it runs
  if (width !== shape.vocabSize)
    throw new GraphContractError(
      `config.json vocab_size is ${shape.vocabSize} but the graph's logits have ${width} ids`,
    );
  if (tokenizerVocab > width)
    throw new GraphContractError(
      `tokenizer.json has ${tokenizerVocab} ids but the graph's logits have only ${width}`,
    );
}

/** Checks every layer's past (missingIoOf found them all); returns their element type (one for all). */
function checkPast(inputs: Map<string, TensorInfo>, shape: ModelShape): FloatType {
  let kvDtype: FloatType | null = null;
  for (let layer = 0; layer < shape.numLayers; layer++) {
    for (const kind of ['key', 'value'] as const) {
      const past = inputs.get(pastName(layer, kind))!;
      const dtype = floatType(past, 'input');
      if (kvDtype && dtype !== kvDtype)
        throw new GraphContractError(
          `graph input "${past.name}" is ${dtype} but layer 0's past is ${kvDtype}`,
        );
      kvDtype = dtype;
      checkKvDims(past, shape);
    }
  }
  return kvDtype ?? 'float32';
}

function checkKvDims(past: TensorInfo, shape: ModelShape): void {
  if (past.dims.length !== 4)
    throw new GraphContractError(
      `graph input "${past.name}" has ${past.dims.length} dims; expected [batch, kv heads, past, head dim]`,
    );
  const [, heads, , headDim] = past.dims;
  if (typeof heads === 'number' && heads !== shape.numKvHeads)
    throw new GraphContractError(
      `graph input "${past.name}" has ${heads} K/V heads but config.json says ${shape.numKvHeads} (num_key_value_heads)`,
    );
  if (typeof headDim === 'number' && headDim !== shape.headDim)
    throw new GraphContractError(
      `graph input "${past.name}" has head dim ${headDim} but config.json gives ${shape.headDim} (head_dim, or hidden_size / num_attention_heads)`,
    );
}

/**
 * The weights' storage as the UI shows it: kinds holding ≥ 10 % of the initializer bytes, largest
 * first (`fp16`, `int4 + fp32`, …); `int4`/`int8` are MatMulNBits / GatherBlockQuantized weights.
 */
export function weightDtypeLabel(graph: GraphSummary): string {
  const total = [...graph.weightBytes.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return 'none';
  return [...graph.weightBytes]
    .filter(([kind, bytes]) => bytes >= total * 0.1 && kind !== 'int64')
    .sort((a, b) => b[1] - a[1])
    .map(([kind]) => SHORT_WEIGHT_NAMES[kind] ?? kind)
    .join(' + ');
}
