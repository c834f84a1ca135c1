// Deleting a model from disk: only what the app's models folder holds (a GGUF file or set, or
// the folder a model came in), never a bundled model or one another program keeps, and never
// while a slot has it loaded or a request uses it. The catalogue's next refresh then sweeps a
// GGUF's conversion (runtime/model/gguf/converted-sweep.ts), so its cache goes with it.

import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { isDiscoveredSource, MODEL_SOURCE_LABELS } from '../runtime/model/model-sources';
import type { CatalogueEntry } from '../runtime/model/catalogue';
import type { Runtime } from '../runtime/runtime';
import { shardPathsOf } from '../runtime/model/gguf/gguf-files';
import { ServiceFailure } from './contract/result';
import type { ModelRemoval } from './contract/hub-schemas';

/** What deleting `modelId` would remove and whether it may now; `not_found` for an unknown model. */
export async function removalOf(runtime: Runtime, modelsDir: string, modelId: string): Promise<ModelRemoval> {
  const entry = runtime.catalogue.entryOf(modelId);
  if (!entry) throw new ServiceFailure('not_found', `unknown model "${modelId}"`);
  const paths = pathsOf(entry, modelsDir);
  let numBytes = 0;
  for (const p of paths ?? []) numBytes += await bytesUnder(p);
  return {
    modelId: entry.modelId,
    paths: paths ?? [],
    numBytes,
    refusal: paths === null ? notOursWords(entry) : inUseWords(runtime, entry),
  };
}

/** Deletes the model's files (refused, in words, when removalOf says so) and rescans the models. */
export async function deleteModel(
  runtime: Runtime,
  modelsDir: string,
  modelId: string,
): Promise<ModelRemoval> {
  const removal = await removalOf(runtime, modelsDir, modelId);
  if (removal.refusal) throw new ServiceFailure('unavailable', removal.refusal);
  for (const p of removal.paths) await rm(p, { recursive: true, force: true });
  await runtime.refreshModels();
  return removal;
}

/**
 * The paths that make the model, inside `modelsDir`: the GGUF set's files when they lie at its
 * top, else the top folder that holds the model. Null when the model is not the folder's.
 */
function pathsOf(entry: CatalogueEntry, modelsDir: string): string[] | null {
  if (entry.isBundled || isDiscoveredSource(entry.source)) return null;
  const relative = path.relative(path.resolve(modelsDir), path.resolve(entry.path));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  const top = relative.split(path.sep)[0]!;
  if (top === relative && entry.path.toLowerCase().endsWith('.gguf'))
    return shardPathsOf(path.resolve(entry.path));
  return [path.join(path.resolve(modelsDir), top)];
}

function notOursWords(entry: CatalogueEntry): string {
  if (entry.isBundled) return `${entry.name} ships with the app and cannot be deleted`;
  if (isDiscoveredSource(entry.source))
    return `${MODEL_SOURCE_LABELS[entry.source]} keeps ${entry.name}: delete it there (First Frame only reads it)`;
  return `${entry.path} is not in the models folder (it was named on the command line): First Frame deletes only what is in its models folder`;
}

/** Why the model cannot go now: one of its variants is loaded in a slot or answering a request. */
function inUseWords(runtime: Runtime, entry: CatalogueEntry): string | null {
  const ids = new Set(runtime.models().flatMap((e) => (e.path === entry.path ? [e.modelId] : [])));
  for (const slot of runtime.slots()) {
    if (!ids.has(slot.model.modelId)) continue;
    const id = slot.model.modelId;
    if (runtime.numSeatedOn(slot) > 0 || slot.status === 'active')
      return `${id} is answering a request: stop it, unload the model, then delete it`;
    if (slot.status === 'prefetching') return `${id} is loading: wait for it, unload it, then delete it`;
    if (slot.status === 'evicting') return `${id} is being unloaded: try again in a moment`;
    if (slot.status === 'resident')
      return `${id} is loaded: unload it first (Slots → Unload), then delete it`;
  }
  return null;
}

/** Bytes of a file, or of every file under a folder (links counted as themselves, never followed). */
async function bytesUnder(target: string): Promise<number> {
  const info = await lstat(target).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(target)) total += await bytesUnder(path.join(target, name));
  return total;
}
