/**
 * Real GGUF files of the bundled model: f16 written by tools/gguf from its ONNX weights, every
 * other type made from that one by llama.cpp's own quantizer (llama_model_quantize), cached in
 * .cache/peers/gguf/ and remade when the f16 file changes. Needs the peers (llama-peers.ts).
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertFolderToGguf, ensureGguf } from '../../tools/gguf';
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
