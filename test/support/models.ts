import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  TINY_SHAPE,
  buildLlamaOnnx,
  makeLlamaConfig,
  randomLlamaWeights,
  writeModelFolder,
} from '../../tools/onnx-llama';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bundled models folder: integration tests run the real shipped model. */
export const BUNDLED_MODELS_DIR = path.join(ROOT, 'resources', 'models');
/** The bundled model's id (its folder name). */
export const BUNDLED_MODEL_ID = 'ff-austen-mini';

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
