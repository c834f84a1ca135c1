import { readFile } from 'node:fs/promises';
import type { CatalogueModel } from '../model/catalogue';
import { kvGeometryOf } from '../model/kv-geometry';
import { ModelRunner } from './model-runner';
import type { RunnerOptions, RunnerSpec } from './model-runner';

/** How to feed a model variant's graph. */
export function runnerSpecOf(model: Pick<CatalogueModel, 'folder' | 'graph'>): RunnerSpec {
  return { file: model.graph.file, io: model.graph.io, geometry: kvGeometryOf(model) };
}

/**
 * A runner on this thread for a variant, its files read with plain reads (no host buffers):
 * for benchmarks' floors, the quality bench and tests. Slots load through their worker instead.
 */
export async function openRunner(
  model: Pick<CatalogueModel, 'folder' | 'graph'>,
  options: RunnerOptions,
): Promise<ModelRunner> {
  const bytes = await readFile(model.graph.onnxPath);
  const externalData = await Promise.all(
    model.graph.externalData.map(async (file) => ({ path: file.location, data: await readFile(file.path) })),
  );
  return ModelRunner.build({ bytes, externalData }, runnerSpecOf(model), options);
}
