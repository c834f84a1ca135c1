import path from 'node:path';
import type { CatalogueEntry } from '../../runtime/model/catalogue';

/**
 * The catalogue reference `--model M [--variant V]` means: the model listed at `modelPath` (M
 * named a file or folder that exists), else M as the app names it (`NAME` or `NAME:variant`);
 * no M: the default model. Null when there is no model at all.
 */
export function modelRefOf(
  entries: readonly CatalogueEntry[],
  request: {
    modelPath: string | null;
    model: string | null;
    variant: string | null;
    defaultModelId: string | null;
  },
): string | null {
  const { modelPath, model, variant, defaultModelId } = request;
  const withVariant = (name: string) => (variant ? `${name}:${variant}` : name);
  if (modelPath) {
    // A GGUF model's folder is listed at the .gguf file inside it.
    const at =
      entries.find((e) => e.path === modelPath) ??
      entries.find((e) => path.dirname(e.path) === modelPath && e.path.toLowerCase().endsWith('.gguf'));
    if (at) return withVariant(at.name);
  }
  if (model) return withVariant(model);
  if (!defaultModelId) return null;
  const name = entries.find((e) => e.modelId === defaultModelId)?.name;
  return variant && name ? withVariant(name) : defaultModelId;
}
