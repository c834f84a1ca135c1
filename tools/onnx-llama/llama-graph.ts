// The Llama decoder graph in the Hugging Face ONNX layout (opset 17, default
// domain only): input_ids, attention_mask, position_ids, past_key_values.N.* →
// logits, present.N.*. Math matches HF LlamaForCausalLM; see README.md.

import { llamaDims, validateLlamaConfig, type LlamaConfig, type LlamaDims } from './config';
import { addDecoderBody, type BodyNames, type IoFloat } from './decoder-body';
import { GraphBuilder } from '../../src-main/runtime/model/fused-graph/graph-builder';
import { addLlamaWeights, type WeightDtype, type WeightValues } from './weight-initializers';
import { checkWeightsMatchConfig, type LlamaWeights } from './weights';

/** Default-domain opset the graph uses (Shape start/end, LessOrEqual need ≥ 16). */
export const LLAMA_OPSET = 17;

/** Options for buildLlamaOnnx. */
export interface BuildLlamaOptions {
  /** Storage dtype of weight matrices; compute is float32 either way. Default float32. */
  weightDtype?: WeightDtype;
  /** Input/output layout; PLAIN_IO for any field not given. */
  io?: Partial<GraphIo>;
}

const PROTOBUF_LIMIT_BYTES = 2 ** 31 - 1;

/** Symbolic dims of the graph contract. */
const BATCH = 'batch_size';
const SEQUENCE = 'sequence_length';
const PAST = 'past_sequence_length';
const TOTAL = 'total_sequence_length';

/** The graph's inputs/outputs: the layouts people download differ here, the math does not. */
export interface GraphIo {
  /** Has a position_ids input (else positions come from attention_mask). Default true. */
  hasPositionIds: boolean;
  /** An int64 scalar input limiting logits to the last k positions (0 = all). Default none. */
  logitsToKeepInput: 'num_logits_to_keep' | 'logits_to_keep' | null;
  /** Past/present element type. Default float32. */
  kvDtype: IoFloat;
  /** Logits element type. Default float32. */
  logitsDtype: IoFloat;
  /** A merged decoder: a bool `use_cache_branch` input picks the with-past or no-past branch of an If. */
  hasUseCacheBranch: boolean;
  /** The LM head as Optimum exports it, MatMul(hidden, Wᵀ) on [B, S, H]; default Gemm on [B*S, H]. */
  isMatMulHead: boolean;
}

/** The Hugging Face layout the tools wrote from the start. */
export const PLAIN_IO: GraphIo = {
  hasPositionIds: true,
  logitsToKeepInput: null,
  kvDtype: 'float32',
  logitsDtype: 'float32',
  hasUseCacheBranch: false,
  isMatMulHead: false,
};

const present = (layer: number, kind: string) => `present.${layer}.${kind}`;
const past = (layer: number, kind: string) => `past_key_values.${layer}.${kind}`;

function declareInputsOutputs(builder: GraphBuilder, dims: LlamaDims, io: GraphIo): void {
  builder.addInput('input_ids', 'int64', [BATCH, SEQUENCE]);
  builder.addInput('attention_mask', 'int64', [BATCH, TOTAL]);
  if (io.hasPositionIds) builder.addInput('position_ids', 'int64', [BATCH, SEQUENCE]);
  if (io.logitsToKeepInput) builder.addInput(io.logitsToKeepInput, 'int64', []);
  if (io.hasUseCacheBranch) builder.addInput('use_cache_branch', 'bool', [1]);
  builder.addOutput('logits', io.logitsDtype, [
    BATCH,
    io.logitsToKeepInput ? 'kept_length' : SEQUENCE,
    dims.vocabSize,
  ]);
  for (let layer = 0; layer < dims.numLayers; layer++) {
    for (const kind of ['key', 'value']) {
      builder.addInput(past(layer, kind), io.kvDtype, kvDims(dims, PAST));
      builder.addOutput(present(layer, kind), io.kvDtype, kvDims(dims, TOTAL));
    }
  }
}

function kvDims(dims: LlamaDims, length: string): Array<string | number> {
  return [BATCH, dims.numKvHeads, length, dims.headDim];
}

/** The body's names for a plain graph, or for one If branch (`prefix`, outputs renamed). */
function bodyNames(io: GraphIo, prefix: string, pastOf: BodyNames['past']): BodyNames {
  return {
    past: pastOf,
    present: (layer, kind) => `${prefix}${present(layer, kind)}`,
    logits: `${prefix}logits`,
    positionIds: io.hasPositionIds ? 'position_ids' : null,
    logitsToKeep: io.logitsToKeepInput,
    kvDtype: io.kvDtype,
    logitsDtype: io.logitsDtype,
    isMatMulHead: io.isMatMulHead,
  };
}

/**
 * A merged decoder (Optimum's decoder_model_merged): `If(use_cache_branch)` whose then-branch
 * attends over the past and whose else-branch ignores it (an empty slice), like the pair of
 * graphs Optimum merges. Weights stay in the outer graph; both branches read them.
 */
function addMergedBranches(builder: GraphBuilder, dims: LlamaDims, weights: WeightValues, io: GraphIo): void {
  const branch = (prefix: string, isUsingPast: boolean) => {
    const sub = new GraphBuilder(prefix);
    const emptyOf = (name: string) =>
      sub.op('Slice', [
        name,
        sub.addInt64Constant('zero', [0]),
        sub.addInt64Constant('zero', [0]),
        sub.addInt64Constant('axis', [2]),
      ]);
    const pastOf = (layer: number, kind: 'key' | 'value') =>
      isUsingPast ? past(layer, kind) : emptyOf(past(layer, kind));
    addDecoderBody(sub, dims, weights, bodyNames(io, prefix, pastOf));
    sub.addOutput(`${prefix}logits`, io.logitsDtype, [BATCH, SEQUENCE, dims.vocabSize]);
    for (let layer = 0; layer < dims.numLayers; layer++)
      for (const kind of ['key', 'value'])
        sub.addOutput(`${prefix}${present(layer, kind)}`, io.kvDtype, kvDims(dims, TOTAL));
    return sub.toGraph(`${prefix}branch`);
  };
  const outputs = ['logits'];
  for (let layer = 0; layer < dims.numLayers; layer++)
    outputs.push(present(layer, 'key'), present(layer, 'value'));
  builder.addNode(
    'If',
    ['use_cache_branch'],
    { then_branch: { graph: branch('with_past/', true) }, else_branch: { graph: branch('no_past/', false) } },
    outputs.length,
    outputs,
  );
}

/**
 * Builds the serialized ONNX model for a config and its HF-named weights.
 * Validates config and weights first; throws before exceeding protobuf's 2 GiB limit.
 */
export function buildLlamaOnnx(
  config: LlamaConfig,
  weights: LlamaWeights,
  options: BuildLlamaOptions = {},
): Uint8Array {
  const validConfig = validateLlamaConfig(config);
  checkWeightsMatchConfig(validConfig, weights);
  const dims = llamaDims(validConfig);
  const weightDtype = options.weightDtype ?? 'float32';
  const storedBytes = [...weights.values()].reduce(
    (sum, t) => sum + t.data.length * (weightDtype === 'float16' ? 2 : 4),
    0,
  );
  if (storedBytes > PROTOBUF_LIMIT_BYTES) {
    throw new Error(
      `weights need ${storedBytes} bytes, over protobuf's 2 GiB limit (external data is not supported)`,
    );
  }
  const io = { ...PLAIN_IO, ...options.io };
  const builder = new GraphBuilder();
  declareInputsOutputs(builder, dims, io);
  const weightValues = addLlamaWeights(builder, validConfig, weights, weightDtype);
  if (io.hasUseCacheBranch) addMergedBranches(builder, dims, weightValues, io);
  else addDecoderBody(builder, dims, weightValues, bodyNames(io, '', past));
  return builder.encodeModel('llama', LLAMA_OPSET, 'first-frame onnx-llama');
}
