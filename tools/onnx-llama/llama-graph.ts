// The Llama decoder graph in the Hugging Face ONNX layout (opset 17, default
// domain only): input_ids, attention_mask, position_ids, past_key_values.N.* →
// logits, present.N.*. Math matches HF LlamaForCausalLM; see README.md.

import { llamaDims, validateLlamaConfig, type LlamaConfig, type LlamaDims } from './config';
import { GraphBuilder } from './graph-builder';
import { addRmsNorm, addRotary, addSharedValues, type SharedValues } from './graph-shared';
import { addLlamaWeights, type LayerWeightValues, type WeightDtype } from './weight-initializers';
import { checkWeightsMatchConfig, type LlamaWeights } from './weights';

/** Default-domain opset the graph uses (Shape start/end, LessOrEqual need ≥ 16). */
export const LLAMA_OPSET = 17;

/** Options for buildLlamaOnnx. */
export interface BuildLlamaOptions {
  /** Storage dtype of weight matrices; compute is float32 either way. Default float32. */
  weightDtype?: WeightDtype;
}

const PROTOBUF_LIMIT_BYTES = 2 ** 31 - 1;

/** Symbolic dims of the graph contract. */
const BATCH = 'batch_size';
const SEQUENCE = 'sequence_length';
const PAST = 'past_sequence_length';
const TOTAL = 'total_sequence_length';

function declareInputsOutputs(builder: GraphBuilder, dims: LlamaDims): void {
  builder.addInput('input_ids', 'int64', [BATCH, SEQUENCE]);
  builder.addInput('attention_mask', 'int64', [BATCH, TOTAL]);
  builder.addInput('position_ids', 'int64', [BATCH, SEQUENCE]);
  const kvDims = (length: string): Array<string | number> => [BATCH, dims.numKvHeads, length, dims.headDim];
  builder.addOutput('logits', 'float32', [BATCH, SEQUENCE, dims.vocabSize]);
  for (let layer = 0; layer < dims.numLayers; layer++) {
    builder.addInput(`past_key_values.${layer}.key`, 'float32', kvDims(PAST));
    builder.addInput(`past_key_values.${layer}.value`, 'float32', kvDims(PAST));
    builder.addOutput(`present.${layer}.key`, 'float32', kvDims(TOTAL));
    builder.addOutput(`present.${layer}.value`, 'float32', kvDims(TOTAL));
  }
}

/** Projects h to K or V and appends it to the past: [B, NKV, T, D] named `present.L.kind`. */
function addPresent(
  builder: GraphBuilder,
  dims: LlamaDims,
  hidden: string,
  weightT: string,
  layer: number,
  kind: 'key' | 'value',
  shared: SharedValues,
): string {
  const splitHeads = builder.addInt64Constant('kv_shape', [0, 0, dims.numKvHeads, dims.headDim]);
  const projected = builder.op('Reshape', [builder.op('MatMul', [hidden, weightT]), splitHeads]);
  let perHead = builder.op('Transpose', [projected], { perm: [0, 2, 1, 3] });
  if (kind === 'key') perHead = addRotary(builder, perHead, shared.cosForKeys, shared.signedSinForKeys);
  return builder.op(
    'Concat',
    [`past_key_values.${layer}.${kind}`, perHead],
    { axis: 2 },
    `present.${layer}.${kind}`,
  );
}

/**
 * Grouped-query attention without copying K/V: queries as [B, NKV, G, S, D],
 * keys/values unsqueezed to [B, NKV, 1, T, D] so MatMul broadcasts over G.
 */
function addAttention(
  builder: GraphBuilder,
  dims: LlamaDims,
  hidden: string,
  weights: LayerWeightValues,
  layer: number,
  shared: SharedValues,
): string {
  const groupSize = dims.numHeads / dims.numKvHeads;
  const splitQueryHeads = builder.addInt64Constant('q_shape', [
    0,
    0,
    dims.numKvHeads,
    groupSize,
    dims.headDim,
  ]);
  const queries = builder.op('Reshape', [builder.op('MatMul', [hidden, weights.qT]), splitQueryHeads]);
  const queriesByGroup = builder.op('Transpose', [queries], { perm: [0, 2, 3, 1, 4] });
  const rotatedQueries = addRotary(builder, queriesByGroup, shared.cosForQueries, shared.signedSinForQueries);
  const keys = addPresent(builder, dims, hidden, weights.kT, layer, 'key', shared);
  const values = addPresent(builder, dims, hidden, weights.vT, layer, 'value', shared);
  const groupAxis = builder.addInt64Constant('axis2', [2]);
  const keysTransposed = builder.op('Unsqueeze', [
    builder.op('Transpose', [keys], { perm: [0, 1, 3, 2] }),
    groupAxis,
  ]);
  const rawScores = builder.op('MatMul', [rotatedQueries, keysTransposed]);
  const sqrtHeadDim = builder.addFloatConstant('sqrt_head_dim', [Math.sqrt(dims.headDim)], []);
  const scores = builder.op('Add', [builder.op('Div', [rawScores, sqrtHeadDim]), shared.attentionBias]);
  const probabilities = builder.op('Softmax', [scores], { axis: -1 });
  const context = builder.op('MatMul', [probabilities, builder.op('Unsqueeze', [values, groupAxis])]);
  const contextBySequence = builder.op('Transpose', [context], { perm: [0, 3, 1, 2, 4] });
  const mergeHeads = builder.addInt64Constant('merged_shape', [0, 0, dims.numHeads * dims.headDim]);
  return builder.op('MatMul', [builder.op('Reshape', [contextBySequence, mergeHeads]), weights.oT]);
}

/** SwiGLU MLP: (silu(h·Wgᵀ) * (h·Wuᵀ))·Wdᵀ with silu(x) = x * Sigmoid(x). */
function addMlp(builder: GraphBuilder, hidden: string, weights: LayerWeightValues): string {
  const gate = builder.op('MatMul', [hidden, weights.gateT]);
  const activated = builder.op('Mul', [gate, builder.op('Sigmoid', [gate])]);
  const up = builder.op('MatMul', [hidden, weights.upT]);
  return builder.op('MatMul', [builder.op('Mul', [activated, up]), weights.downT]);
}

function addLayer(
  builder: GraphBuilder,
  dims: LlamaDims,
  residual: string,
  weights: LayerWeightValues,
  layer: number,
  shared: SharedValues,
): string {
  builder.scope = `/layers.${layer}/attn`;
  const attentionInput = addRmsNorm(builder, residual, weights.inputNorm, dims.rmsNormEps);
  const afterAttention = builder.op('Add', [
    residual,
    addAttention(builder, dims, attentionInput, weights, layer, shared),
  ]);
  builder.scope = `/layers.${layer}/mlp`;
  const mlpInput = addRmsNorm(builder, afterAttention, weights.postNorm, dims.rmsNormEps);
  return builder.op('Add', [afterAttention, addMlp(builder, mlpInput, weights)]);
}

/** logits = x·Wᵀ via Gemm(transB) on [B*S, H], so a tied embedding is stored and held once. */
function addLogits(builder: GraphBuilder, dims: LlamaDims, hidden: string, lmHead: string): void {
  builder.scope = '/lm_head';
  const flat = builder.op('Reshape', [hidden, builder.addInt64Constant('flat_shape', [-1, dims.hiddenSize])]);
  const flatLogits = builder.op('Gemm', [flat, lmHead], { transB: 1 });
  const vocab = builder.addInt64Constant('vocab', [dims.vocabSize]);
  const logitsShape = builder.op('Concat', [builder.op('Shape', ['input_ids']), vocab], { axis: 0 });
  builder.op('Reshape', [flatLogits, logitsShape], {}, 'logits');
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
  const builder = new GraphBuilder();
  declareInputsOutputs(builder, dims);
  const weightValues = addLlamaWeights(builder, validConfig, weights, weightDtype);
  const shared = addSharedValues(builder, dims, 'past_key_values.0.key');
  builder.scope = '/embed';
  let hidden = builder.op('Gather', [weightValues.embed, 'input_ids'], { axis: 0 });
  weightValues.layers.forEach((layerWeights, layer) => {
    hidden = addLayer(builder, dims, hidden, layerWeights, layer, shared);
  });
  builder.scope = '/final_norm';
  const normed = addRmsNorm(builder, hidden, weightValues.finalNorm, dims.rmsNormEps);
  addLogits(builder, dims, normed, weightValues.lmHead);
  return builder.encodeModel('llama', LLAMA_OPSET);
}
