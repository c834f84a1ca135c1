import path from 'node:path';
import { Runtime } from '../../../runtime';
import type { CatalogueModel, RuntimeOptions } from '../../../runtime';

/**
 * A runtime on the folder that holds `modelDir`, with that model checked to load; throws
 * (after closing the runtime) with the folder's own error or a hint to pass --model.
 */
export async function openModelRuntime(
  modelDir: string,
  overrides: Partial<RuntimeOptions> = {},
): Promise<{ runtime: Runtime; modelId: string; model: CatalogueModel }> {
  const runtime = await Runtime.create({ bundledModelsDir: path.dirname(modelDir), ...overrides });
  const modelId = path.basename(modelDir);
  const entry = runtime.models().find((m) => m.modelId === modelId);
  if (entry?.status === 'ok') return { runtime, modelId, model: entry.model };
  await runtime.close();
  throw new Error(
    entry?.status === 'broken'
      ? `model ${modelId}: ${entry.error}`
      : `no model folder at ${modelDir} (pass --model DIR)`,
  );
}
