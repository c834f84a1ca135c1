import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertModelForm } from '../../tools/onnx-llama/model-jobs';
import { QUANTIZE_DEFAULTS, quantizeModelFolder } from '../../tools/onnx-llama/quantize/quantize-model';
import { TINY_SHAPE, makeLlamaConfig } from '../../tools/onnx-llama/config';
import { buildLlamaOnnx } from '../../tools/onnx-llama/llama-graph';
import { randomLlamaWeights } from '../../tools/onnx-llama/random-weights';
import { writeModelFolder } from '../../tools/onnx-llama/write-model-folder';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bundled models folder: integration tests run the real shipped model. */
export const BUNDLED_MODELS_DIR = path.join(ROOT, 'resources', 'models');
/** The bundled model's id (its folder name). */
export const BUNDLED_MODEL_ID = 'ff-austen-mini';
/** The bundled variant's id: named by its fp16 weights, though its file is `model.onnx` ("fp32" by name). */
export const BUNDLED_MODEL_REF = `${BUNDLED_MODEL_ID}:fp16`;
/** The id the bundled variant had before ids named weights (its file's): still resolves to it. */
export const BUNDLED_MODEL_OLD_REF = `${BUNDLED_MODEL_ID}:fp32`;

/**
 * A folder of small random-weight models (the bundled model's tokenizer) for tests that need
 * a second, different model. Weights are drawn wide (std 0.3) so the model does not merely
 * echo its input, and written once per machine under .cache/test-models.
 */
export function randomModelsDir(names: readonly string[]): string {
  const dir = path.join(ROOT, '.cache', 'test-models');
  for (const [index, name] of names.entries()) {
    const outDir = path.join(dir, name);
    if (existsSync(path.join(outDir, 'onnx', 'model.onnx'))) continue;
    mkdirSync(outDir, { recursive: true });
    const config = makeLlamaConfig({ ...TINY_SHAPE, maxPositions: 2048 });
    const weights = randomLlamaWeights(config, { seed: 101 + index, std: 0.3 });
    const onnxBytes = buildLlamaOnnx(config, weights, { weightDtype: 'float32' });
    writeModelFolder({
      outDir,
      config,
      onnxBytes,
      weightDtype: 'float32',
      tokenizerFrom: path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID),
    });
  }
  return dir;
}

/**
 * A models folder holding the bundled model with its graphs in the naive form (the same fp16
 * weights; q4/q8 quantized naively), for tests that run the runtime on both forms. Written once
 * per bundled model file under .cache/test-models (built aside and renamed into place, so test
 * files racing to build it never see half a folder).
 */
export function naiveBundledModelsDir(): string {
  const source = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const digest = createHash('sha256')
    .update(readFileSync(path.join(source, 'onnx', 'model.onnx')))
    .digest('hex')
    .slice(0, 12);
  const root = path.join(ROOT, '.cache', 'test-models', `naive-${digest}`);
  if (existsSync(path.join(root, BUNDLED_MODEL_ID))) return root;
  const building = path.join(ROOT, '.cache', 'test-models', `naive-${digest}.${process.pid}.partial`);
  cpSync(source, path.join(building, BUNDLED_MODEL_ID), { recursive: true });
  const modelDir = path.join(building, BUNDLED_MODEL_ID);
  convertModelForm({ modelDir, form: 'naive' });
  for (const bits of [4, 8] as const)
    quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir, bits, form: 'naive' });
  try {
    renameSync(building, root);
  } catch {
    // Another test file renamed its own build into place first: that one is used.
    rmSync(building, { recursive: true, force: true });
  }
  return root;
}

/**
 * The runtime's two graph forms, the models folder holding the bundled model in each, and the
 * fusion setting that runs that form: off for the naive form, which fusion at load would rewrite.
 */
export function modelForms(): Array<{ form: 'fused' | 'naive'; modelsDir: string; canFuseAtLoad: boolean }> {
  return [
    { form: 'fused', modelsDir: BUNDLED_MODELS_DIR, canFuseAtLoad: true },
    { form: 'naive', modelsDir: naiveBundledModelsDir(), canFuseAtLoad: false },
  ];
}
