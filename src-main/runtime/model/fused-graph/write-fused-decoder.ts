import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  checkDims,
  checkEmbedding,
  checkFinalNorm,
  checkHead,
  checkLayer,
  checkWeightSet,
  WeightSetError,
} from './check-weight-set';
import { ExternalDataFile } from './external-data';
import { addEmbedding, addLmHead } from './embedding-head';
import { addFusedLayer, addNorm } from './fused-layer';
import { addEmbeddingScale, addSoftcap } from './gemma';
import { ATTENTION_MASK, FUSED_INPUTS, fusedIoOf } from './fused-io';
import type { AttentionInputs } from './fused-io';
import type { LayerInputs, Stream } from './fused-layer';
import { GraphBuilder, ONNX_TYPE_CODE } from './graph-builder';
import { ropeInverseFrequencies, rotaryAmplitudeOf, scaledInverseFrequencies } from '../rope';
import { addFloatVector } from './vectors';
import { streamOf } from './weight-set';
import type { DecoderDims, DecoderWeightSet, StreamedWeightSet } from './weight-set';
import type { ProjectionOptions } from './projections';

/** Choices the weight set does not make. */
export interface FusedGraphOptions {
  /** MatMulNBits `accuracy_level` for block weights: 4 (int8 activations, the fast CPU kernels) by default. */
  accuracyLevel?: 0 | 1 | 2 | 3 | 4;
  /**
   * How float matrices are stored in the file: `float16` (one Cast each, folded by ONNX Runtime at
   * session creation), `float32`, or `as-given` (fp16 stays fp16; bf16 becomes float32). Default `as-given`.
   */
  floatStorage?: 'float32' | 'float16' | 'as-given';
  /** The ModelProto's producer_name. */
  producer?: string;
  /**
   * `lengths` (default): GroupQueryAttention's own inputs, fed directly (FUSED_INPUTS);
   * `attention-mask`: an attention_mask [batch, total] turned into them inside the graph (six
   * more nodes per step), the onnxruntime-genai model builder's interface.
   */
  attentionInputs?: AttentionInputs;
}

export { FUSED_INPUTS } from './fused-io';

/** Default-domain opset the fused graph imports (com.microsoft 1 beside it). */
export const FUSED_OPSET = 17;

const PROTOBUF_LIMIT_BYTES = 2 ** 31 - 1;
function declareIo(builder: GraphBuilder, dims: DecoderDims, attentionInputs: AttentionInputs): void {
  const { inputs, outputs } = fusedIoOf(dims, attentionInputs);
  for (const input of inputs) builder.addInput(input.name, input.type, input.dims);
  for (const output of outputs) builder.addOutput(output.name, output.type, output.dims);
}

/**
 * The rotary caches, cos and sin of position × inverse frequency for every position below the
 * context length, [contextLength, headDim / 2], written as the constant subgraph that computes
 * them: ONNX Runtime folds it at session creation (nothing runs per token), its Cos/Sin give the
 * naive graph's values bit for bit, and the file holds headDim / 2 floats instead of the tables.
 */
function addLayerInputs(
  builder: GraphBuilder,
  dims: DecoderDims,
  attentionInputs: AttentionInputs,
): LayerInputs {
  const lengths = attentionInputs === 'attention-mask' ? addLengthsFromMask(builder) : null;
  builder.scope = '/model/rotary';
  const positions = builder.op('Range', [
    builder.addFloatConstant('start', [0], []),
    builder.addFloatConstant('limit', [dims.contextLength], []),
    builder.addFloatConstant('delta', [1], []),
  ]);
  const column = builder.op('Unsqueeze', [positions, builder.addInt64Constant('axis1', [1])]);
  const caches = (inverse: Float32Array, amplitude = 1) => {
    const angles = builder.op('Mul', [column, builder.addFloatConstant('inv_freq', inverse)]);
    // GroupQueryAttention's rotation is linear in cos and sin, so scaling them scales q and k alike.
    const factor = amplitude === 1 ? null : builder.addFloatConstant('amplitude', [amplitude], []);
    const scaled = (cache: string) => (factor ? builder.op('Mul', [cache, factor]) : cache);
    return { cosCache: scaled(builder.op('Cos', [angles])), sinCache: scaled(builder.op('Sin', [angles])) };
  };
  const slidingTheta = dims.gemma?.slidingRopeTheta ?? null;
  return {
    seqlensK: lengths?.seqlensK ?? FUSED_INPUTS.seqlensK,
    totalSequenceLength: lengths?.totalSequenceLength ?? FUSED_INPUTS.totalSequenceLength,
    ...caches(scaledInverseFrequencies(dims), rotaryAmplitudeOf(dims)),
    sliding: slidingTheta === null ? null : caches(ropeInverseFrequencies(dims.headDim, slidingTheta)),
  };
}

/**
 * onnxruntime-genai's mask subgraph: seqlens_k = Σ mask per row − 1, total = the mask's width,
 * both int32 (rows start-aligned, so a row's ones are its first columns).
 */
function addLengthsFromMask(builder: GraphBuilder): Pick<LayerInputs, 'seqlensK' | 'totalSequenceLength'> {
  builder.scope = '/model/attn_mask_reformat';
  const one = builder.addInt64Constant('one', [1]);
  const counts = builder.op('ReduceSum', [ATTENTION_MASK, one], { keepdims: 0 });
  const seqlensK = builder.op('Cast', [builder.op('Sub', [counts, one])], { to: ONNX_TYPE_CODE.int32 });
  const shape = builder.op('Shape', [ATTENTION_MASK]);
  const width = builder.op('Gather', [shape, builder.addInt64Constant('index1', [1], [])], { axis: 0 });
  return { seqlensK, totalSequenceLength: builder.op('Cast', [width], { to: ONNX_TYPE_CODE.int32 }) };
}

/** The last `num_logits_to_keep` positions (HF: 0 keeps all, since a Slice from −0 starts at 0). */
function keptPositions(builder: GraphBuilder, hidden: string): string {
  builder.scope = '/model/keep';
  const starts = builder.op('Unsqueeze', [
    builder.op('Neg', [FUSED_INPUTS.logitsToKeep]),
    builder.addInt64Constant('axis0', [0]),
  ]);
  const ends = builder.addInt64Constant('ends', [Number.MAX_SAFE_INTEGER]);
  return builder.op('Slice', [hidden, starts, ends, builder.addInt64Constant('axes', [1])]);
}

function checkSize(set: DecoderWeightSet): void {
  let numBytes = 0;
  const visit = (value: unknown): void => {
    if (ArrayBuffer.isView(value)) numBytes += value.byteLength;
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit([set.embedding, set.layers, set.lmHead]);
  if (numBytes > PROTOBUF_LIMIT_BYTES)
    throw new WeightSetError(
      '(all)',
      `${numBytes} bytes of weights exceed protobuf's 2 GiB (external data is not written)`,
    );
}

/** The writer's choices with their defaults applied. */
function projectionOf(options: FusedGraphOptions): ProjectionOptions {
  return { accuracyLevel: options.accuracyLevel ?? 4, floatStorage: options.floatStorage ?? 'as-given' };
}

/** How the graph takes its lengths (FusedGraphOptions.attentionInputs), defaulted. */
const attentionInputsOf = (options: FusedGraphOptions): AttentionInputs =>
  options.attentionInputs ?? 'lengths';

/** `weight` after `check` when checking: passes it straight on, so no caller's local holds it. */
function checked<T>(
  weight: T,
  isChecking: boolean,
  check: (dims: DecoderDims, weight: T) => void,
  dims: DecoderDims,
): T {
  if (isChecking) check(dims, weight);
  return weight;
}

/**
 * Adds the whole decoder to `builder`, taking each weight from `source` when it is reached (the
 * embedding, each layer in order, the final norm, the head), checked as it arrives when `isChecking`.
 */
function addDecoder(
  builder: GraphBuilder,
  source: StreamedWeightSet,
  options: FusedGraphOptions,
  isChecking: boolean,
): void {
  const { dims } = source;
  const projection = projectionOf(options);
  declareIo(builder, dims, attentionInputsOf(options));
  const shared = addLayerInputs(builder, dims, attentionInputsOf(options));
  // Each weight is taken inside a call of its own, so nothing here keeps it once written: a
  // local of this function lived until the head, and an untied model held its embedding (1 GB
  // for an 8B) while the head converted.
  const embedding = addEmbedding(
    builder,
    checked(source.embedding(), isChecking, checkEmbedding, dims),
    projection,
  );
  const hidden = dims.gemma
    ? addEmbeddingScale(builder, embedding.hidden, dims.hiddenSize)
    : embedding.hidden;
  let stream: Stream = { pending: null, residual: hidden };
  for (let layer = 0; layer < dims.numLayers; layer++)
    stream = addFusedLayer(
      builder,
      layer,
      stream,
      checked(source.layer(layer), isChecking, (d, w) => checkLayer(d, layer, w), dims),
      dims,
      shared,
      projection,
    );
  builder.scope = '/model/norm';
  const finalNormWeight = source.finalNorm();
  if (isChecking) checkFinalNorm(dims, finalNormWeight);
  const finalNorm = addFloatVector(builder, 'model.norm.weight', finalNormWeight);
  const { normed } = addNorm(builder, stream, finalNorm, dims.rmsNormEps);
  const lmHead = source.lmHead();
  if (isChecking) checkHead(dims, lmHead);
  const finalSoftcap = dims.gemma?.finalSoftcap ?? null;
  const logits = finalSoftcap ? 'logits_uncapped' : 'logits';
  addLmHead(builder, lmHead, embedding, keptPositions(builder, normed), projection, logits);
  if (finalSoftcap) addSoftcap(builder, logits, finalSoftcap, 'logits');
}

/**
 * Writes the fused decoder graph (ONNX model bytes, device-free) for a weight set: per layer one
 * SkipSimplifiedLayerNormalization before attention and one before the MLP, one packed QKV
 * MatMul(NBits), one GroupQueryAttention with RoPE inside (present may share the past's buffer),
 * the output projection, one packed gate/up projection, Split, QuickGelu(alpha 1) = SiLU, Mul,
 * the down projection. Inputs: input_ids, FUSED_INPUTS, past_key_values.N.key|value [batch, kv
 * heads, past, head dim] (rows start-aligned: a row's tokens at columns 0…); outputs: logits,
 * present.N.key|value. Throws WeightSetError (check-weight-set.ts) for a set it does not take.
 */
export function writeFusedDecoder(set: DecoderWeightSet, options: FusedGraphOptions = {}): Uint8Array {
  checkWeightSet(set);
  checkSize(set);
  const builder = new GraphBuilder();
  addDecoder(builder, streamOf(set), options, false);
  return builder.encodeModel('fused-decoder', FUSED_OPSET, options.producer ?? 'first-frame fused-graph');
}

/** Where writeFusedDecoderFiles puts the graph and its weights (the data file beside the graph). */
export interface FusedGraphFiles {
  onnxPath: string;
  dataPath: string;
}

/**
 * The same graph as writeFusedDecoder, written as `files.onnxPath` with every weight of 1 KiB or
 * more in `files.dataPath` beside it, each written as soon as its node is added: weights are
 * taken from `source` one layer at a time and never gathered, so a model of any size (past
 * protobuf's 2 GiB) is written holding about one layer. Throws WeightSetError as a weight arrives
 * that the writer does not take (the files are then incomplete: the caller removes them).
 */
export function writeFusedDecoderFiles(
  source: StreamedWeightSet,
  files: FusedGraphFiles,
  options: FusedGraphOptions = {},
): { onnxBytes: number; dataBytes: number } {
  checkDims(source.dims);
  if (path.dirname(path.resolve(files.dataPath)) !== path.dirname(path.resolve(files.onnxPath)))
    throw new Error('the external data file must lie beside the graph');
  const data = new ExternalDataFile(files.dataPath);
  try {
    const builder = new GraphBuilder('', data);
    addDecoder(builder, source, options, true);
    const bytes = builder.encodeModel(
      'fused-decoder',
      FUSED_OPSET,
      options.producer ?? 'first-frame fused-graph',
    );
    writeFileSync(files.onnxPath, bytes);
    return { onnxBytes: bytes.byteLength, dataBytes: data.size };
  } finally {
    data.close();
  }
}
