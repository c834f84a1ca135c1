import type { LoadJob } from '../../src-main/runtime/slot-worker/protocol';
import { ModelCatalogue } from '../../src-main/runtime/model/catalogue';
import { kvGeometryOf } from '../../src-main/runtime/model/kv-geometry';
import { RevisionCache } from '../../src-main/runtime/model/revisions';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';

/**
 * A slot worker's load job for the bundled q4 model (already fused: GroupQueryAttention), as the
 * registry would send it: one thread, cpu only, a 1 MiB graph cache when `graphCacheDir` is set.
 */
export async function bundledQ4LoadJob(options: {
  graphCacheDir: string | null;
  modelRevision: string;
  isFusionOn: boolean;
}): Promise<LoadJob> {
  const catalogue = new ModelCatalogue(BUNDLED_MODELS_DIR, null, new RevisionCache(null));
  await catalogue.refresh();
  const model = catalogue.resolve(`${BUNDLED_MODEL_ID}:q4`);
  if (model instanceof Error) throw model;
  return {
    type: 'load',
    file: model.graph.file,
    onnxPath: model.graph.onnxPath,
    externalData: [],
    io: model.graph.io,
    modelRevision: options.modelRevision,
    geometry: kvGeometryOf(model),
    numThreads: 1,
    canSpinThreads: true,
    provider: { provider: 'cpu', isCpuFallbackAllowed: false },
    graphCacheDir: options.graphCacheDir,
    canCachePrepacked: false,
    graphCacheBytes: 1 << 20,
    graphCacheSkip: null,
    fusion: { isOn: options.isFusionOn, hints: { shape: model.folder.shape, config: model.folder.config } },
  };
}
