import { checkWeightSet } from './check-weight-set';
import type { DecoderWeightSet } from './weight-set';

/** Choices the weight set does not make. */
export interface FusedGraphOptions {
  /** MatMulNBits `accuracy_level` for block weights: 4 (int8 activations, the fast CPU kernels) by default. */
  accuracyLevel?: 0 | 1 | 2 | 3 | 4;
  /**
   * How float matrices are stored in the file: `float16` (one Cast each, folded by ONNX Runtime at
   * session creation), `float32`, or `as-given` (bf16 becomes float32). Default `as-given`.
   */
  floatStorage?: 'float32' | 'float16' | 'as-given';
}

/**
 * Writes the fused decoder graph (ONNX model bytes, device-free) for a weight set: per layer one
 * SkipSimplifiedLayerNormalization, one packed QKV MatMul(NBits), one GroupQueryAttention with
 * RoPE inside and past/present sharing one buffer, the output projection, one packed gate/up
 * projection with SiLU·mul, the down projection. Its inputs and outputs are onnxruntime-genai's:
 * input_ids, attention_mask, past_key_values.N.key|value → logits, present.N.key|value.
 * Throws WeightSetError (check-weight-set.ts) for a set outside the accepted combinations.
 */
export function writeFusedDecoder(set: DecoderWeightSet, options: FusedGraphOptions = {}): Uint8Array {
  checkWeightSet(set);
  void options;
  throw new Error('writeFusedDecoder: the graph body lands in the next stage of issue 26');
}
