import { fileURLToPath } from 'node:url';

/** The repository's bundled models folder (resources/models), resolved from this file. */
export const BUNDLED_MODELS_DIR = fileURLToPath(new URL('../../resources/models', import.meta.url));

/** The default per-user data folder for CLI runs (database, user models, caches). */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.first-frame', import.meta.url));
