// The fused graph writer's input: a llama-family decoder's dimensions and weights, neutral to
// where they came from (a safetensors file, a GGUF file, the initializers of a naive ONNX graph,
// random numbers). Each weight is either float in the storage it came in or already block-
// quantized in MatMulNBits' byte layout, so quantized sources never pass through float.

import type { RopeParams } from '../rope';
import type { GemmaDims } from './gemma';

/** A llama-family decoder's dimensions (Hugging Face config.json's, named for code), RoPE's included. */
export interface DecoderDims extends RopeParams {
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  /** Per-head width; numHeads × headDim need not equal hiddenSize. Even (RoPE rotates pairs). */
  headDim: number;
  intermediateSize: number;
  vocabSize: number;
  rmsNormEps: number;
  /** The LM head is the embedding (the weight set then has no `lmHead`). */
  isTiedEmbedding: boolean;
  /** Positions the model runs to: the length of the rotary cos/sin caches the graph holds. */
  contextLength: number;
  /** What a Gemma 2 / Gemma 3 decoder changes (gemma.ts); absent or null for llama's graph. */
  gemma?: GemmaDims | null;
}

/**
 * A float tensor as its source stores it, row-major: fp32 values, or 16-bit patterns of IEEE
 * half (`float16`) or bfloat16. Vectors have shape [n]; matrices [rows, cols].
 */
export type FloatData =
  | { dtype: 'float32'; data: Float32Array }
  | { dtype: 'float16'; data: Uint16Array }
  | { dtype: 'bfloat16'; data: Uint16Array };

/**
 * A float weight. A matrix is `out-in` ([out features, in features]: Hugging Face, PyTorch and
 * GGUF order) or `in-out` ([in, out]: a naive ONNX graph's transposed MatMul initializer), so
 * a loaded graph's weights feed in without a transpose. Vectors (norms) ignore `order`.
 */
export type FloatWeight = FloatData & {
  kind: 'float';
  shape: number[];
  order: 'out-in' | 'in-out';
};

/**
 * A weight already block-quantized in the layout of ONNX Runtime's `com.microsoft` MatMulNBits:
 * numRows (N, out features; the vocabulary for an embedding) rows of numCols (K, in features)
 * codes, cut along K into blocks of `blockSize`, the last block zero-padded.
 * - `data`: uint8 [N, ceil(K / blockSize), blockSize × bits / 8]; codes are unsigned; at 4 bits
 *   element 2i is the low nibble of byte i and element 2i+1 the high nibble.
 * - `scales`: [N × numBlocks] float32, row-major (fp16 scales widen exactly).
 * - `zeroPoints`: null means 2^(bits−1) (symmetric); else uint8 [N × ceil(numBlocks × bits / 8)],
 *   packed like the codes (two 4-bit zero points a byte, low nibble first).
 * - `offsets` (optional): float32 [N × numBlocks], row-major like the scales; each block's
 *   values are shifted by its offset (block-offsets.ts adds it as block sums of the input times
 *   the offsets, so affine blocks run on MatMulNBits' fast default-zero-point path). Needs K a
 *   multiple of blockSize. Absent or null: no shift.
 * - `factored` (optional): the same scales and offsets in the narrow exact form GGUF stores them
 *   (FactoredScales); the writer stores that form and lets ONNX Runtime widen it at load.
 * Value = (code − zeroPoint) × scale + offset. GGUF Q4_0 maps with zeroPoints null (its nibbles
 * reordered: GGUF puts element j and j+16 in byte j); Q8_0 maps with code = q + 128 and zeroPoints
 * null; Q4_K with codes as they are, zeroPoints null and offset 8 × scale − min.
 */
export interface BlockWeight {
  kind: 'blocks';
  bits: 4 | 8;
  blockSize: number;
  numRows: number;
  numCols: number;
  data: Uint8Array;
  scales: Float32Array;
  zeroPoints: Uint8Array | null;
  offsets?: Float32Array | null;
  factored?: FactoredScales | null;
}

/**
 * A block weight's scales (and offsets) as GGUF stores them: blocks run in groups of `groupSize`
 * along a row (a K-quant super-block's sub-blocks; 1 for Q4_0, Q8_0, …), each group with one
 * half-float factor and each block with a small integer step, so
 *   scale = scaleFactor × scaleStep,  offset = middle × scale − minFactor × minStep,
 * every product exact in float32. 1–2 bytes a block on disk instead of 4–8.
 */
export interface FactoredScales {
  groupSize: number;
  /** int8 [N × numBlocks]; null when groupSize is 1 (every step 1: the factor is the scale). */
  scaleSteps: Int8Array | null;
  /** Half-float bits [N × numBlocks / groupSize]. */
  scaleFactors: Uint16Array;
  /** Affine blocks only: the code shift `middle` and the mins, stepped like the scales. */
  mins: { middle: number; steps: Int8Array | null; factors: Uint16Array } | null;
}

/** A projection or embedding matrix: float or block-quantized. */
export type MatrixWeight = FloatWeight | BlockWeight;

/**
 * One decoder layer. Projections are in Hugging Face's sense (q: [numHeads × headDim, hidden],
 * k/v: [numKvHeads × headDim, hidden], o: [hidden, numHeads × headDim], gate/up:
 * [intermediate, hidden], down: [hidden, intermediate], as out × in). Q and K rows are in
 * Hugging Face's rotate-half order: GGUF's llama Q/K rows (permuted for interleaved RoPE) must be
 * permuted back, which moves whole rows, so quantized rows move as they are.
 */
export interface DecoderLayerWeights {
  inputNorm: FloatWeight;
  q: MatrixWeight;
  k: MatrixWeight;
  v: MatrixWeight;
  o: MatrixWeight;
  postAttentionNorm: FloatWeight;
  gate: MatrixWeight;
  up: MatrixWeight;
  down: MatrixWeight;
  /** Biases added to the q/k/v projections ([out] each; Qwen2), or none. */
  qkvBias?: { q: FloatWeight; k: FloatWeight; v: FloatWeight } | null;
  /** RMSNorm weights ([headDim]) applied to each query and key head before RoPE (Qwen3), or none. */
  qkNorm?: { q: FloatWeight; k: FloatWeight } | null;
  /** RMSNorm weights ([hidden]) of the attention's and the MLP's outputs before the residual (Gemma), or none. */
  outputNorms?: { attention: FloatWeight; mlp: FloatWeight } | null;
}

/**
 * Everything the fused graph writer needs. Combinations it accepts:
 * - norms: float vectors of any float dtype (written as float32);
 * - every matrix independently float (fp32/fp16/bf16, either order) or blocks (4 or 8 bits,
 *   block size a power of two ≥ 16, with or without zero points);
 * - q/k/v are packed into one MatMul(NBits) when all three are float, or all blocks with the same
 *   bits, block size and zero-point presence (offsets may differ: a part without reads zeros);
 *   otherwise each runs on its own (3 nodes, not 1). gate/up likewise;
 * - embedding float (Gather) or blocks without zero points or offsets, K a multiple of the block size
 *   (GatherBlockQuantized); a tied LM head reads the embedding's bytes (MatMulNBits or Gemm);
 * - `lmHead` present exactly when `dims.isTiedEmbedding` is false.
 * Activations and K/V are float32 (ONNX Runtime's CPU GroupQueryAttention computes in float32).
 */
export interface DecoderWeightSet {
  dims: DecoderDims;
  /** [vocab, hidden]. */
  embedding: MatrixWeight;
  layers: DecoderLayerWeights[];
  finalNorm: FloatWeight;
  /** [vocab, hidden]; null when tied. */
  lmHead: MatrixWeight | null;
}

/**
 * A weight set handed over one part at a time (the streamed writer takes each when it reaches it
 * and lets it go): a converter reading a large file need never hold more than one layer. Each
 * method is called once, in the order embedding, layer 0 … numLayers − 1, finalNorm, lmHead.
 */
export interface StreamedWeightSet {
  dims: DecoderDims;
  embedding(): MatrixWeight;
  layer(index: number): DecoderLayerWeights;
  finalNorm(): FloatWeight;
  /** null when the embedding is tied. */
  lmHead(): MatrixWeight | null;
}

/** A weight set already in memory, handed over as a stream. */
export function streamOf(set: DecoderWeightSet): StreamedWeightSet {
  return {
    dims: set.dims,
    embedding: () => set.embedding,
    layer: (index) => set.layers[index]!,
    finalNorm: () => set.finalNorm,
    lmHead: () => set.lmHead,
  };
}
