/**
 * Real GGUF files of the bundled model: f16 written by tools/gguf from its ONNX weights, every
 * other type made from that one by llama.cpp's own quantizer (llama_model_quantize), cached in
 * .cache/peers/gguf/ and remade when the f16 file changes. Needs the peers (llama-peers.ts).
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGguf } from '../../tools/gguf';
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
