// HF Llama weights → the tensors of a llama-arch GGUF: llama.cpp's names, ggml's dimension
// order, and Q/K rows permuted from HF's rotate-half RoPE layout to the interleaved pairs
// llama.cpp's LLAMA rope rotates (as convert_hf_to_gguf.py's LlamaModel.permute does).

import type { LlamaConfig } from '../onnx-llama/config';
import { llamaDims } from '../onnx-llama/config';
import type { LlamaWeights, NamedTensor } from '../onnx-llama/weights';
import type { GgmlTypeName, GgufTensor } from './gguf-file';
import { encodeTensor } from './quantize';

/** Storage types a whole-model conversion offers (matrices; norm vectors stay f32). */
export type GgufWeightType = 'f16' | 'q8_0' | 'q4_0';

/**
 * Architectures the writer names: llama and mistral3 (Q/K rows permuted for llama.cpp's
 * interleaved rope), or qwen2 / qwen3 / gemma2 / gemma3 (NeoX rope, rows as Hugging Face holds
 * them; their q/k/v biases or q/k norms written when the weights hold them).
 */
export type GgufArchitecture = 'llama' | 'mistral3' | 'qwen2' | 'qwen3' | 'gemma2' | 'gemma3';

/** The architectures whose Q/K rows llama.cpp's converter permutes. */
const PERMUTED: ReadonlySet<GgufArchitecture> = new Set(['llama', 'mistral3']);

/** Hugging Face names (after `model.layers.N.self_attn.`) of the extras qwen layers carry → ggml's. */
const LAYER_EXTRAS: Array<[string, string]> = [
  ['q_proj.bias', 'attn_q.bias'],
  ['k_proj.bias', 'attn_k.bias'],
  ['v_proj.bias', 'attn_v.bias'],
  ['q_norm.weight', 'attn_q_norm.weight'],
  ['k_norm.weight', 'attn_k_norm.weight'],
];

/**
 * Reorders the rows of a [numHeads·headDim, in] projection: within each head, HF's row
 * `half·(headDim/2) + i` moves to `2i + half`, so llama.cpp's adjacent-pair rotation equals
 * HF's rotate_half. Q and K get the same reordering per head, so q·k is unchanged.
 */
export function permuteForRope(tensor: NamedTensor, numHeads: number): NamedTensor {
  const [numRows, numCols] = tensor.shape as [number, number];
  const headDim = numRows / numHeads;
  if (!Number.isInteger(headDim) || headDim % 2 !== 0)
    throw new Error(`cannot split ${numRows} rows into ${numHeads} heads of an even width`);
  const halfDim = headDim / 2;
  const out = new Float32Array(tensor.data.length);
  for (let head = 0; head < numHeads; head++) {
    for (let half = 0; half < 2; half++) {
      for (let i = 0; i < halfDim; i++) {
        const from = (head * headDim + half * halfDim + i) * numCols;
        const to = (head * headDim + 2 * i + half) * numCols;
        out.set(tensor.data.subarray(from, from + numCols), to);
      }
    }
  }
  return { data: out, shape: tensor.shape };
}

function weightOf(weights: LlamaWeights, name: string): NamedTensor {
  const tensor = weights.get(name);
  if (!tensor) throw new Error(`weight ${name} is missing`);
  return tensor;
}

/** One tensor in ggml order (HF [rows, cols] → ne [cols, rows]); vectors are always f32. */
function ggufTensor(name: string, tensor: NamedTensor, type: GgmlTypeName): GgufTensor {
  const ne = [...tensor.shape].reverse();
  const storedType = tensor.shape.length === 1 ? 'f32' : type;
  return { name, ne, type: storedType, data: encodeTensor(tensor.data, ne[0]!, storedType) };
}

/**
 * Every tensor llama.cpp's graph for `architecture` loads, in `type` (matrices) and f32 (norms,
 * biases).
 * `output.weight` is left out when the embedding is tied: llama.cpp then reuses token_embd.
 */
export function llamaTensors(
  config: LlamaConfig,
  weights: LlamaWeights,
  type: GgufWeightType,
  architecture: GgufArchitecture = 'llama',
): GgufTensor[] {
  const dims = llamaDims(config);
  const rope = (tensor: NamedTensor, numHeads: number) =>
    PERMUTED.has(architecture) ? permuteForRope(tensor, numHeads) : tensor;
  const tensors = [ggufTensor('token_embd.weight', weightOf(weights, 'model.embed_tokens.weight'), type)];
  for (let layer = 0; layer < dims.numLayers; layer++) {
    const hf = (name: string) => weightOf(weights, `model.layers.${layer}.${name}.weight`);
    const blk = (name: string, tensor: NamedTensor) =>
      ggufTensor(`blk.${layer}.${name}.weight`, tensor, type);
    tensors.push(
      blk('attn_norm', hf('input_layernorm')),
      blk('attn_q', rope(hf('self_attn.q_proj'), dims.numHeads)),
      blk('attn_k', rope(hf('self_attn.k_proj'), dims.numKvHeads)),
      blk('attn_v', hf('self_attn.v_proj')),
      blk('attn_output', hf('self_attn.o_proj')),
      blk('ffn_norm', hf('post_attention_layernorm')),
      blk('ffn_gate', hf('mlp.gate_proj')),
      blk('ffn_up', hf('mlp.up_proj')),
      blk('ffn_down', hf('mlp.down_proj')),
    );
    for (const [hfName, ggmlName] of LAYER_EXTRAS) {
      const extra = weights.get(`model.layers.${layer}.self_attn.${hfName}`);
      if (extra && !PERMUTED.has(architecture))
        tensors.push(ggufTensor(`blk.${layer}.${ggmlName}`, extra, type));
    }
  }
  // Weights already under a ggml layer name (a Gemma layer's output norms) go in as they are.
  for (const [name, tensor] of weights)
    if (name.startsWith('blk.') && !PERMUTED.has(architecture)) tensors.push(ggufTensor(name, tensor, type));
  tensors.push(ggufTensor('output_norm.weight', weightOf(weights, 'model.norm.weight'), type));
  if (!dims.isTiedEmbedding)
    tensors.push(ggufTensor('output.weight', weightOf(weights, 'lm_head.weight'), type));
  return tensors;
}
