import path from 'node:path';
import { Runtime } from '../../src-main/runtime/runtime';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import type { RuntimeOptions } from '../../src-main/runtime/runtime-options';
import { modelRefFor } from '../../src-main/cli/paths';

/**
 * A runtime on the folder that holds `modelDir`, with that model (its `variant`, else its
 * default variant) checked to load; `modelId` is the canonical `name:variant`. Throws (after
 * closing the runtime) with the variant's own error or a hint to pass --model / --variant.
 */
export async function openModelRuntime(
  modelDir: string,
  overrides: Partial<RuntimeOptions> = {},
  variant: string | null = null,
): Promise<{ runtime: Runtime; modelId: string; model: CatalogueModel }> {
  const runtime = await Runtime.create({ bundledModelsDir: path.dirname(modelDir), ...overrides });
  const ref = modelRefFor(modelDir, variant)!;
  const entry = runtime.catalogue.entryOf(ref);
  if (entry?.status === 'ok') return { runtime, modelId: entry.modelId, model: entry.model };
  const variants = runtime
    .models()
    .filter((m) => m.name === path.basename(modelDir))
    .map((m) => m.variant);
  await runtime.close();
  throw new Error(
    entry?.status === 'broken'
      ? `model ${ref}: ${entry.error}`
      : variants.length > 0
        ? `${ref}: no such variant; ${path.basename(modelDir)} has ${variants.join(', ')}`
        : `no model folder at ${modelDir} (pass --model DIR)`,
  );
}
