// What the catalogue reads: the models of a models directory (folders and GGUF files), models
// named by path, the models discovery found, and the names they are listed under.

import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FoundModel } from './discovery/found-model';
import { ggufModelName, isLaterShard } from './gguf/gguf-files';
import { isDiscoveredSource, SOURCE_PREFIXES } from './model-sources';

/** The models of a models directory: each folder, and each GGUF file (a split set by its first shard). */
export async function modelsIn(dir: string, source: 'bundled' | 'models-folder'): Promise<FoundModel[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: FoundModel[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const model = await modelAt(path.join(dir, name), source);
    if (model) found.push(model);
  }
  return found;
}

/**
 * The models named by path (a command line's `--model FILE.gguf|FOLDER`), listed with the models
 * folder's; a path that holds no model is listed with why, so a request for it says so.
 */
export async function modelsAt(paths: readonly string[]): Promise<FoundModel[]> {
  const found: FoundModel[] = [];
  for (const full of paths) {
    const model = await modelAt(full, 'models-folder');
    const name = path.basename(full);
    const problem = existsSync(full) ? 'is neither a model folder nor a .gguf file' : 'does not exist';
    found.push(
      model ?? { source: 'models-folder', name, path: full, label: full, kind: 'gguf', facts: null, problem },
    );
  }
  return found;
}

/** The model at `full`: a folder (a GGUF model's folder, or any other), a GGUF file (a set's first shard), or null. */
async function modelAt(full: string, source: 'bundled' | 'models-folder'): Promise<FoundModel | null> {
  const name = path.basename(full);
  const base = { source, path: full, label: name, facts: null, problem: null };
  const info = await stat(full).catch(() => null);
  const gguf = info?.isDirectory() ? await ggufOfFolder(full) : null;
  if (gguf) return { ...base, name, path: path.join(full, gguf), label: gguf, kind: 'gguf' };
  if (info?.isDirectory()) return { ...base, name, kind: 'folder' };
  if (info?.isFile() && name.toLowerCase().endsWith('.gguf') && !isLaterShard(name))
    return { ...base, name: ggufModelName(name), kind: 'gguf' };
  return null;
}

/**
 * The GGUF a folder holds when it is a GGUF model's folder (no config.json or genai_config.json,
 * one GGUF model: a single file or one split set; a vision projector beside it is no model), else null.
 */
async function ggufOfFolder(dir: string): Promise<string | null> {
  const names = await readdir(dir).catch(() => [] as string[]);
  if (names.includes('config.json') || names.includes('genai_config.json')) return null;
  const ggufs = names.filter(
    (n) => n.toLowerCase().endsWith('.gguf') && !isLaterShard(n) && !n.toLowerCase().startsWith('mmproj'),
  );
  return ggufs.length === 1 ? ggufs[0]! : null;
}

/**
 * The name a model is listed under, unique among `taken`: its own; a user folder with a bundled
 * model's name is `user/<name>`; a discovered model whose name is taken gets its store's prefix
 * (`ollama/llama3.2:3b`), then a number.
 */
export function uniqueNameOf(found: FoundModel, taken: ReadonlySet<string>): string {
  if (!taken.has(found.name)) return found.name;
  const prefix = isDiscoveredSource(found.source) ? SOURCE_PREFIXES[found.source] : 'user';
  const prefixed = `${prefix}/${found.name}`;
  if (!taken.has(prefixed)) return prefixed;
  for (let n = 2; ; n++) if (!taken.has(`${prefixed}-${n}`)) return `${prefixed}-${n}`;
}
