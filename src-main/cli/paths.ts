import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's bundled models folder (resources/models), resolved from this file. */
export const BUNDLED_MODELS_DIR = fileURLToPath(new URL('../../resources/models', import.meta.url));

/** The held-out Austen text the quality benchmark scores (never in ff-austen-mini's training data). */
export const HELD_OUT_TEXT = fileURLToPath(
  new URL('../../resources/eval/austen-held-out.json', import.meta.url),
);

/** The default per-user data folder for CLI runs (database, user models, caches). */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.first-frame', import.meta.url));

/**
 * The model reference a command means by `--model DIR [--variant NAME]`: the folder name
 * (its default variant) or `name:variant`. No folder: the bundled model.
 */
export function modelRefFor(modelDir: string | null, variant: string | null | undefined): string | undefined {
  const name = modelDir ? path.basename(modelDir) : variant ? 'ff-austen-mini' : undefined;
  if (!name) return undefined;
  return variant ? `${name}:${variant}` : name;
}
