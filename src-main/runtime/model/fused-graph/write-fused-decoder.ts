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
import { FUSED_INPUTS, fusedIoOf } from './fused-io';
import type { LayerInputs, Stream } from './fused-layer';
import { GraphBuilder } from './graph-builder';
import { bytesOfBits } from './float-matrix';
import { rotaryCaches } from './rope';
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
}

export { FUSED_INPUTS } from './fused-io';

/** Default-domain opset the fused graph imports (com.microsoft 1 beside it). */
export const FUSED_OPSET = 17;

const PROTOBUF_LIMIT_BYTES = 2 ** 31 - 1;
function declareIo(builder: GraphBuilder, dims: DecoderDims): void {
  const { inputs, outputs } = fusedIoOf(dims);
  for (const input of inputs) builder.addInput(input.name, input.type, input.dims);
  for (const output of outputs) builder.addOutput(output.name, output.type, output.dims);
}

function addLayerInputs(builder: GraphBuilder, dims: DecoderDims): LayerInputs {
  builder.scope = '/model/rotary';
  const { cos, sin } = rotaryCaches(dims);
  const cacheDims = [dims.contextLength, dims.headDim / 2];
  return {
    seqlensK: FUSED_INPUTS.seqlensK,
    totalSequenceLength: FUSED_INPUTS.totalSequenceLength,
    cosCache: builder.addInitializer('cos_cache', 'float32', cacheDims, bytesOfBits(cos)),
    sinCache: builder.addInitializer('sin_cache', 'float32', cacheDims, bytesOfBits(sin)),
  };
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

/**
 * Adds the whole decoder to `builder`, taking each weight from `source` when it is reached (the
 * embedding, each layer in order, the final norm, the head), checked as it arrives when `isChecking`.
 */
function addDecoder(
  builder: GraphBuilder,
  source: StreamedWeightSet,
  projection: ProjectionOptions,
  isChecking: boolean,
): void {
  const { dims } = source;
  declareIo(builder, dims);
  const shared = addLayerInputs(builder, dims);
  const embeddingWeight = source.embedding();
  if (isChecking) checkEmbedding(dims, embeddingWeight);
  const embedding = addEmbedding(builder, embeddingWeight, projection);
  let stream: Stream = { pending: null, residual: embedding.hidden };
  for (let layer = 0; layer < dims.numLayers; layer++) {
    const weights = source.layer(layer);
    if (isChecking) checkLayer(dims, layer, weights);
    stream = addFusedLayer(builder, layer, stream, weights, dims, shared, projection);
  }
  builder.scope = '/model/norm';
  const finalNormWeight = source.finalNorm();
  if (isChecking) checkFinalNorm(dims, finalNormWeight);
  const finalNorm = addFloatVector(builder, 'model.norm.weight', finalNormWeight);
  const { normed } = addNorm(builder, stream, finalNorm, dims.rmsNormEps);
  const lmHead = source.lmHead();
  if (isChecking) checkHead(dims, lmHead);
  addLmHead(builder, lmHead, embedding, keptPositions(builder, normed), projection);
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
  addDecoder(builder, streamOf(set), projectionOf(options), false);
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
    addDecoder(builder, source, projectionOf(options), true);
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
