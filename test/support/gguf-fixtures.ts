/**
 * Real GGUF files of the bundled model: f16 written by tools/gguf from its ONNX weights, every
 * other type made from that one by llama.cpp's own quantizer (llama_model_quantize), cached in
 * .cache/peers/gguf/ and remade when the f16 file changes. Needs the peers (llama-peers.ts).
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGguf } from '../../tools/gguf/cached';
import { convertFolderToGguf } from '../../tools/gguf/convert';
import type { GgufValue } from '../../tools/gguf/gguf-file';
import { validateLlamaConfig } from '../../tools/onnx-llama/config';
import { readOnnxLlamaWeights } from '../../tools/onnx-llama/read-weights';
import type { LlamaFtypeName } from '../../bench/peers/llama-ffi';
import { llamaFfi } from './llama-peers';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';

const CACHE = fileURLToPath(new URL(`../../.cache/peers/gguf/${BUNDLED_MODEL_ID}`, import.meta.url));

/** The bundled model as a GGUF of `type` (llama.cpp's quantizer for everything but f16). */
export function bundledGguf(type: LlamaFtypeName): string {
  const f16 = ensureGguf(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID), 'f16', CACHE).path;
  if (type === 'f16') return f16;
  const out = path.join(CACHE, `model-${type}.gguf`);
  const stamp = `${statSync(f16).size}:${statSync(f16).mtimeMs}`;
  if (existsSync(out) && existsSync(`${out}.source`) && readFileSync(`${out}.source`, 'utf8') === stamp)
    return out;
  if (!llamaFfi) throw new Error('llama.cpp peers are not installed (npm run peers:install)');
  llamaFfi.quantizeModel(f16, `${out}.partial`, type);
  renameSync(`${out}.partial`, out);
  writeFileSync(`${out}.source`, stamp);
  return out;
}

/**
 * The bundled model written as a `qwen2` GGUF (with q/k/v biases) or a `qwen3` one (with per-head
 * q/k norms) into `dir`, f16: the extras are fixed, smooth values (the bundled model has none),
 * large enough that a converter leaving them out answers differently.
 */
export function qwenGguf(architecture: 'qwen2' | 'qwen3', dir: string): string {
  const modelDir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const config = JSON.parse(readFileSync(path.join(modelDir, 'config.json'), 'utf8')) as Record<
    string,
    number
  >;
  const headDim = config['head_dim']!;
  const qWidth = config['num_attention_heads']! * headDim;
  const kvWidth = config['num_key_value_heads']! * headDim;
  const wave = (length: number, phase: number, scale: number, offset = 0) => ({
    data: Float32Array.from({ length }, (_, i) => offset + scale * Math.sin(0.37 * i + phase)),
    shape: [length],
  });
  const extraWeights = new Map<string, { data: Float32Array; shape: number[] }>();
  for (let layer = 0; layer < config['num_hidden_layers']!; layer++) {
    const at = (name: string) => `model.layers.${layer}.self_attn.${name}`;
    if (architecture === 'qwen2') {
      extraWeights.set(at('q_proj.bias'), wave(qWidth, layer, 0.5));
      extraWeights.set(at('k_proj.bias'), wave(kvWidth, layer + 1, 0.5));
      extraWeights.set(at('v_proj.bias'), wave(kvWidth, layer + 2, 0.1));
    } else {
      extraWeights.set(at('q_norm.weight'), wave(headDim, layer, 0.25, 1));
      extraWeights.set(at('k_norm.weight'), wave(headDim, layer + 1, 0.25, 1));
    }
  }
  const outPath = path.join(dir, `${BUNDLED_MODEL_ID}-${architecture}-f16.gguf`);
  convertFolderToGguf({ modelDir, type: 'f16', outPath, architecture, extraWeights });
  return outPath;
}

/** The sliding window gemmaGguf writes: short enough that the tests' prompts slide past it. */
export const GEMMA_FIXTURE_WINDOW = 32;

const GELU_SIGMOID_FACTOR = 1.702;

/**
 * The bundled model's weights written as a `gemma2` or `gemma3` GGUF into `dir`, f16, with what
 * those architectures add: the embedding stored ÷ √hidden (Gemma multiplies it back; the tied
 * head's argmax is unchanged), gate/up rescaled for GELU, each layer's post-attention and
 * post-feed-forward norms (fixed smooth values near the embedding's scale, so the residual keeps
 * its proportions), Gemma 3's q/k norms, a sliding window of GEMMA_FIXTURE_WINDOW, Gemma 2's
 * soft-caps (the attention's small enough to bite) and Gemma 3's global RoPE base 10⁶ with linear
 * scaling ×8. The model predicts the text worse than the bundled one (its learned magnitudes no
 * longer hold), which a comparison with llama.cpp on the same file does not mind.
 */
export function gemmaGguf(architecture: 'gemma2' | 'gemma3', dir: string): string {
  const modelDir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const config = validateLlamaConfig(JSON.parse(readFileSync(path.join(modelDir, 'config.json'), 'utf8')));
  const hidden = config.hidden_size;
  const headDim = config.head_dim ?? hidden / config.num_attention_heads;
  const weights = readOnnxLlamaWeights(path.join(modelDir, 'onnx', 'model.onnx'), config);
  const embedding = weights.get('model.embed_tokens.weight')!;
  const scaled = (name: string, factor: number) => {
    const { data, shape } = weights.get(name)!;
    return { data: data.map((x) => x * factor), shape };
  };
  const wave = (length: number, phase: number, scale: number, offset: number) => ({
    data: Float32Array.from({ length }, (_, i) => offset + scale * Math.sin(0.37 * i + phase)),
    shape: [length],
  });
  const extraWeights = new Map([
    [
      'model.embed_tokens.weight',
      { data: embedding.data.map((x) => x / Math.sqrt(hidden)), shape: embedding.shape },
    ],
  ]);
  for (let layer = 0; layer < config.num_hidden_layers; layer++) {
    // SiLU(x) ≈ 1.702·GELU(x / 1.702) (GELU ≈ x·σ(1.702x)): the learned MLP survives the swap.
    const mlp = (name: string) => `model.layers.${layer}.mlp.${name}.weight`;
    extraWeights.set(mlp('gate_proj'), scaled(mlp('gate_proj'), 1 / GELU_SIGMOID_FACTOR));
    extraWeights.set(mlp('up_proj'), scaled(mlp('up_proj'), GELU_SIGMOID_FACTOR));
    extraWeights.set(`blk.${layer}.post_attention_norm.weight`, wave(hidden, layer, 0.01, 0.04));
    extraWeights.set(`blk.${layer}.post_ffw_norm.weight`, wave(hidden, layer + 1, 0.01, 0.04));
    if (architecture === 'gemma3') {
      const at = (name: string) => `model.layers.${layer}.self_attn.${name}`;
      extraWeights.set(at('q_norm.weight'), wave(headDim, layer, 0.25, 1));
      extraWeights.set(at('k_norm.weight'), wave(headDim, layer + 1, 0.25, 1));
    }
  }
  const f32 = (value: number): GgufValue => ({ type: 'float32', value });
  const extraMetadata: Array<[string, GgufValue]> = [
    [`${architecture}.attention.sliding_window`, { type: 'uint32', value: GEMMA_FIXTURE_WINDOW }],
    ...(architecture === 'gemma2'
      ? ([
          ['gemma2.attn_logit_softcapping', f32(4)],
          ['gemma2.final_logit_softcapping', f32(30)],
        ] as Array<[string, GgufValue]>)
      : ([
          ['gemma3.rope.freq_base', f32(1_000_000)],
          ['gemma3.rope.scaling.type', { type: 'string', value: 'linear' }],
          ['gemma3.rope.scaling.factor', f32(8)],
        ] as Array<[string, GgufValue]>)),
  ];
  const outPath = path.join(dir, `${BUNDLED_MODEL_ID}-${architecture}-f16.gguf`);
  convertFolderToGguf({ modelDir, type: 'f16', outPath, architecture, extraWeights, extraMetadata });
  return outPath;
}
