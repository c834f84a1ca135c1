// What Gemma 2 and Gemma 3 change in the llama graph, as llama.cpp's gemma2/gemma3 graphs compute
// it: the embedding scaled by √hidden, GELU (tanh) instead of SiLU, each sublayer's output
// RMS-normed before it joins the residual, the query scaled by its own factor, attention logits
// (Gemma 2) and final logits soft-capped, and sliding-window layers beside global ones, each kind
// with its own RoPE caches. GroupQueryAttention does the scale, the cap and the window itself.

import type { Attributes, GraphBuilder } from './graph-builder';
import { addFloatVector } from './vectors';
import type { FloatWeight } from './weight-set';

/** How a layer attends: to its last `slidingWindow` positions, or to every earlier one. */
export type LayerAttention = 'sliding' | 'global';

/** A Gemma 2 / Gemma 3 decoder's settings beyond llama's (DecoderDims.gemma). */
export interface GemmaDims {
  /** The factor on Q·K (llama.cpp's f_attention_scale: 1/√headDim, 1/√(hidden/heads) for the 27B sizes). */
  attentionScale: number;
  /** Attention logits become cap·tanh(logits/cap) before the softmax (Gemma 2), or null. */
  attentionSoftcap: number | null;
  /** The LM head's logits become cap·tanh(logits/cap), or null. */
  finalSoftcap: number | null;
  /** Positions a sliding layer's query sees, its own included (llama.cpp's n_swa). */
  slidingWindow: number;
  /** Each layer's kind, numLayers of them. */
  layerAttention: LayerAttention[];
  /** RoPE base of sliding layers, whose frequencies are never rescaled; null: they use the global caches. */
  slidingRopeTheta: number | null;
}

/** The rotary caches a layer reads: the global ones, or the sliding layers' own. */
export interface RotaryCaches {
  cosCache: string;
  sinCache: string;
}

/** The embedding × √hidden (llama.cpp scales in float32, after the lookup). */
export function addEmbeddingScale(builder: GraphBuilder, hidden: string, hiddenSize: number): string {
  return builder.op('Mul', [hidden, builder.addFloatConstant('embed_scale', [Math.sqrt(hiddenSize)], [])]);
}

/** RMSNorm of a sublayer's output before it joins the residual (post_attention_norm, post_ffw_norm). */
export function addOutputNorm(
  builder: GraphBuilder,
  x: string,
  name: string,
  weight: FloatWeight,
  eps: number,
): string {
  return builder.op('SimplifiedLayerNormalization', [x, addFloatVector(builder, name, weight)], {
    epsilon: { float: eps },
    axis: -1,
    stash_type: 1,
  });
}

/** GELU, tanh approximation (llama.cpp's ggml_gelu; ONNX Runtime's FastGelu computes the same formula). */
export function addGeluTanh(builder: GraphBuilder, x: string): string {
  return builder.msOp('FastGelu', [x]);
}

/**
 * GroupQueryAttention's scale, softcap and local_window_size for `layer`. The window is n_swa
 * itself: in ONNX Runtime 1.30's CPU kernel a query then sees n_swa keys, its own included, as in
 * llama.cpp (measured on one file: n_swa − 1 first parts from llama.cpp at position n_swa − 1).
 */
export function gemmaAttentionAttributes(gemma: GemmaDims, layer: number): Attributes {
  return {
    scale: { float: gemma.attentionScale },
    ...(gemma.attentionSoftcap ? { softcap: { float: gemma.attentionSoftcap } } : {}),
    ...(gemma.layerAttention[layer] === 'sliding' ? { local_window_size: gemma.slidingWindow } : {}),
  };
}

/** cap·tanh(x / cap), named `outputName`. */
export function addSoftcap(builder: GraphBuilder, x: string, cap: number, outputName?: string): string {
  const scaled = builder.op('Mul', [x, builder.addFloatConstant('inverse_cap', [1 / cap], [])]);
  const capped = builder.op('Tanh', [scaled]);
  return builder.op('Mul', [capped, builder.addFloatConstant('cap', [cap], [])], {}, outputName);
}
