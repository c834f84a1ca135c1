/**
 * A small `phi3` GGUF written as llama.cpp's converter writes Phi-3 / Phi-3.5 / Phi-4 files: q/k/v
 * stacked in `blk.N.attn_qkv` (or apart, which llama.cpp also loads), gate and up stacked in
 * `blk.N.ffn_up` (gate rows first), NeoX rope (rows as Hugging Face holds them), LongRoPE's
 * `rope_factors_long` / `rope_factors_short` with `phi3.rope.scaling.original_context_length` and
 * `phi3.rope.scaling.attn_factor`, and a `phi3.attention.sliding_window` (which llama.cpp ignores
 * for phi3). The weights are random (2 layers, hidden 256, GQA 8/4 heads, untied head) or the
 * bundled model's trained ones: a random model's near-tied logits flip under any 4-bit noise, so
 * quantized agreement is measured on trained weights. The bundled model's vocabulary either way,
 * so prompts are fed as token ids.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeGguf } from '../../tools/gguf/gguf-file';
import { tokenizerMetadata } from '../../tools/gguf/llama-metadata';
import { encodeTensor } from '../../tools/gguf/quantize';
import type { GgufTensor, GgufValue } from '../../tools/gguf/gguf-file';
import { llamaDims, makeLlamaConfig, validateLlamaConfig } from '../../tools/onnx-llama/config';
import { randomLlamaWeights } from '../../tools/onnx-llama/random-weights';
import { readOnnxLlamaWeights } from '../../tools/onnx-llama/read-weights';
import type { LlamaConfig } from '../../tools/onnx-llama/config';
import type { LlamaWeights, NamedTensor } from '../../tools/onnx-llama/weights';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';

/** The test model's context length: the context llama.cpp is opened with in the tests. */
export const PHI3_CONTEXT = 2048;

/** What varies between the test files. */
export interface Phi3GgufSpec {
  outPath: string;
  /** q/k/v in one `attn_qkv` tensor (the converter's way) or three. */
  isQkvStacked: boolean;
  /**
   * LongRoPE's original context: below PHI3_CONTEXT, llama.cpp (and First Frame) take the long
   * factors; at it, the short ones. null writes no factors (Phi-3-mini-4k, Phi-4).
   */
  originalContext: number | null;
  /** `phi3.rope.scaling.attn_factor` (written with the factors). */
  attentionFactor: number;
  /** Random weights (the default) or the bundled model's. */
  weights?: 'random' | 'bundled';
}

const RANDOM_SHAPE = {
  numLayers: 2,
  hiddenSize: 256,
  numHeads: 8,
  numKvHeads: 4,
  intermediateSize: 512,
  vocabSize: 4096,
  maxPositions: PHI3_CONTEXT,
  isTiedEmbedding: false,
};

/** Rows of matrices end to end (Hugging Face [out, in] each) as one [Σ out, in] matrix. */
function stackRows(parts: NamedTensor[]): NamedTensor {
  const data = new Float32Array(parts.reduce((sum, part) => sum + part.data.length, 0));
  let offset = 0;
  for (const part of parts) {
    data.set(part.data, offset);
    offset += part.data.length;
  }
  const numRows = parts.reduce((sum, part) => sum + part.shape[0]!, 0);
  return { data, shape: [numRows, parts[0]!.shape[1]!] };
}

/** One tensor in ggml order, f16 matrices and f32 vectors. */
function tensorOf(name: string, tensor: NamedTensor): GgufTensor {
  const ne = [...tensor.shape].reverse();
  const type = tensor.shape.length === 1 ? 'f32' : 'f16';
  return { name, ne, type, data: encodeTensor(tensor.data, ne[0]!, type) };
}

/** LongRoPE's factors for the head's 16 frequencies: short near 1, long rising to 40 at the low end. */
function ropeFactors(headDim: number): { short: NamedTensor; long: NamedTensor } {
  const half = headDim / 2;
  const short = Float32Array.from({ length: half }, (_, i) => 1 + 0.05 * Math.sin(i));
  const long = Float32Array.from({ length: half }, (_, i) => 1 + 39 * (i / (half - 1)) ** 2);
  return { short: { data: short, shape: [half] }, long: { data: long, shape: [half] } };
}

/** The config and Hugging Face weights the file is written from. */
function sourceOf(spec: Phi3GgufSpec): { config: LlamaConfig; weights: LlamaWeights } {
  if (spec.weights !== 'bundled') {
    const config = makeLlamaConfig(RANDOM_SHAPE);
    return { config, weights: randomLlamaWeights(config, { seed: 7, std: 0.1 }) };
  }
  const dir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const config = validateLlamaConfig(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')));
  return { config, weights: readOnnxLlamaWeights(path.join(dir, 'onnx', 'model.onnx'), config) };
}

function phi3Tensors(spec: Phi3GgufSpec, config: LlamaConfig, weights: LlamaWeights): GgufTensor[] {
  const dims = llamaDims(config);
  const hf = (name: string) => weights.get(name)!;
  const tensors = [tensorOf('token_embd.weight', hf('model.embed_tokens.weight'))];
  if (spec.originalContext !== null) {
    const factors = ropeFactors(dims.headDim);
    tensors.push(tensorOf('rope_factors_long.weight', factors.long));
    tensors.push(tensorOf('rope_factors_short.weight', factors.short));
  }
  for (let layer = 0; layer < dims.numLayers; layer++) {
    const at = (name: string) => hf(`model.layers.${layer}.${name}.weight`);
    const blk = (name: string, tensor: NamedTensor) => tensorOf(`blk.${layer}.${name}.weight`, tensor);
    const [q, k, v] = ['q_proj', 'k_proj', 'v_proj'].map((name) => at(`self_attn.${name}`)) as [
      NamedTensor,
      NamedTensor,
      NamedTensor,
    ];
    tensors.push(
      blk('attn_norm', at('input_layernorm')),
      ...(spec.isQkvStacked
        ? [blk('attn_qkv', stackRows([q, k, v]))]
        : [blk('attn_q', q), blk('attn_k', k), blk('attn_v', v)]),
      blk('attn_output', at('self_attn.o_proj')),
      blk('ffn_norm', at('post_attention_layernorm')),
      blk('ffn_up', stackRows([at('mlp.gate_proj'), at('mlp.up_proj')])),
      blk('ffn_down', at('mlp.down_proj')),
    );
  }
  tensors.push(tensorOf('output_norm.weight', hf('model.norm.weight')));
  if (!dims.isTiedEmbedding) tensors.push(tensorOf('output.weight', hf('lm_head.weight')));
  return tensors;
}

function phi3Metadata(spec: Phi3GgufSpec, config: LlamaConfig): Array<[string, GgufValue]> {
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
  const f32 = (value: number): GgufValue => ({ type: 'float32', value });
  const dims = llamaDims(config);
  const tokenizer = JSON.parse(
    readFileSync(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID, 'tokenizer.json'), 'utf8'),
  ) as Parameters<typeof tokenizerMetadata>[0];
  return [
    ['general.architecture', { type: 'string', value: 'phi3' }],
    // Not "phi3": llama.cpp then marks Phi-3's special tokens (</s>, <unk>, …) by text, which this vocabulary lacks.
    ['general.name', { type: 'string', value: 'tiny-random' }],
    ['general.file_type', u32(1)],
    ['general.quantization_version', u32(2)],
    ['phi3.context_length', u32(PHI3_CONTEXT)],
    ['phi3.embedding_length', u32(dims.hiddenSize)],
    ['phi3.feed_forward_length', u32(dims.intermediateSize)],
    ['phi3.block_count', u32(dims.numLayers)],
    ['phi3.attention.head_count', u32(dims.numHeads)],
    ['phi3.attention.head_count_kv', u32(dims.numKvHeads)],
    ['phi3.attention.layer_norm_rms_epsilon', f32(dims.rmsNormEps)],
    ['phi3.attention.sliding_window', u32(PHI3_CONTEXT / 4 - 1)],
    ['phi3.rope.dimension_count', u32(dims.headDim)],
    ['phi3.rope.freq_base', f32(dims.ropeTheta)],
    ...(spec.originalContext === null
      ? []
      : ([
          ['phi3.rope.scaling.original_context_length', u32(spec.originalContext)],
          ['phi3.rope.scaling.attn_factor', f32(spec.attentionFactor)],
        ] as Array<[string, GgufValue]>)),
    ...tokenizerMetadata(tokenizer, dims.vocabSize, { bosTokenId: 0, eosTokenId: 4, padTokenId: 0 }),
  ];
}

/** Writes the phi3 GGUF `spec` describes (f16 matrices, same weights whatever the spec) and returns its path. */
export function phi3Gguf(spec: Phi3GgufSpec): string {
  const { config, weights } = sourceOf(spec);
  if (config.max_position_embeddings !== PHI3_CONTEXT)
    throw new Error('the source must run PHI3_CONTEXT positions');
  writeGguf(spec.outPath, phi3Metadata(spec, config), phi3Tensors(spec, config, weights));
  return spec.outPath;
}
