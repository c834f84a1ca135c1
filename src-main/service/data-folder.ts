import path from 'node:path';
import type { RuntimeOptions } from '../runtime/runtime-options';

/** The runtime's folders inside a data folder, as the app, `npm run serve` and `npm run generate` use it. */
export type RuntimeFolders = Pick<
  RuntimeOptions,
  'userModelsDir' | 'revisionCacheFile' | 'graphCacheDir' | 'convertedModelsDir'
>;

/**
 * Where a data folder keeps what the runtime reads and writes: the user's models (`models/`),
 * remembered content hashes, ONNX Runtime's graph cache and, inside it, GGUF conversions.
 */
export function runtimeFoldersOf(dataDir: string): RuntimeFolders {
  const graphCacheDir = path.join(dataDir, 'ort-graphs');
  return {
    userModelsDir: path.join(dataDir, 'models'),
    revisionCacheFile: path.join(dataDir, 'revisions.json'),
    graphCacheDir,
    convertedModelsDir: path.join(graphCacheDir, 'gguf'),
  };
}
