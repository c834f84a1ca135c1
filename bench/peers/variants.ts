import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGguf } from '../../tools/gguf/cached';
import type { GgufWeightType } from '../../tools/gguf/llama-tensors';

/** A precision compared across engines: llama.cpp's GGUF type and our model variant. */
export type Precision = 'f16' | 'q8' | 'q4';

/**
 * Each precision's counterparts: the GGUF type and the ONNX variant (`fp32` is `onnx/model.onnx`,
 * whatever its weights' storage: fp16 in the models compared here), and the quantize bits.
 */
export const PRECISIONS: Record<
  Precision,
  { ggufType: GgufWeightType; variant: string; bits: number | null }
> = {
  f16: { ggufType: 'f16', variant: 'fp32', bits: null },
  q8: { ggufType: 'q8_0', variant: 'q8', bits: 8 },
  q4: { ggufType: 'q4_0', variant: 'q4', bits: 4 },
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL_TOOL = path.join(ROOT, 'tools', 'onnx-llama', 'cli.ts');

/** The ONNX file of a variant, as transformers.js names it (`onnx/model_q4.onnx`). */
export function variantOnnxPath(modelDir: string, variant: string): string {
  return path.join(modelDir, 'onnx', variant === 'fp32' ? 'model.onnx' : `model_${variant}.onnx`);
}

/**
 * Makes a missing quantized variant with the model tool's `quantize` command, next to the
 * source. Returns null when the file is there (now), or why it could not be made.
 */
export function ensureVariant(modelDir: string, precision: Precision): string | null {
  const { variant, bits } = PRECISIONS[precision];
  if (bits === null || existsSync(variantOnnxPath(modelDir, variant))) return null;
  if (!readFileSync(MODEL_TOOL, 'utf8').includes("'quantize'"))
    return `onnx/model_${variant}.onnx is missing and this checkout's model tool has no quantize command`;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', MODEL_TOOL, 'quantize', '--model', modelDir, '--bits', String(bits)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (result.status !== 0)
    return `quantize --bits ${bits} failed: ${(result.stderr || result.error?.message || '').trim().slice(-400)}`;
  return existsSync(variantOnnxPath(modelDir, variant))
    ? null
    : `quantize --bits ${bits} wrote no model_${variant}.onnx`;
}

/**
 * The folder's GGUF of `precision`, made from its default ONNX file when missing or stale and
 * cached beside the model (`<model>/gguf/`); a bundled model's copy goes under .cache/peers so
 * the app's resources stay as shipped.
 */
export function ggufFor(modelDir: string, precision: Precision, bundledModelsDir: string) {
  const isBundled = path.relative(bundledModelsDir, modelDir).split(path.sep)[0] !== '..';
  const cacheDir = isBundled ? path.join(ROOT, '.cache', 'peers', 'gguf', path.basename(modelDir)) : null;
  return ensureGguf(modelDir, PRECISIONS[precision].ggufType, cacheDir);
}
