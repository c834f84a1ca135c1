// What the catalogue reads: the models of a models directory (folders and GGUF files), the
// models discovery found, and the names they are listed under.

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FoundModel } from './discovery';
import { ggufModelName, isLaterShard } from './gguf/gguf-files';
import { isDiscoveredSource, SOURCE_PREFIXES } from './model-sources';

/** The models of a models directory: each folder, and each GGUF file (a split set by its first shard). */
export async function modelsIn(dir: string, source: 'bundled' | 'models-folder'): Promise<FoundModel[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: FoundModel[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    const base = { source, path: full, label: name, facts: null, problem: null };
    const info = await stat(full).catch(() => null);
    if (info?.isDirectory()) found.push({ ...base, name, kind: 'folder' });
    else if (info?.isFile() && name.toLowerCase().endsWith('.gguf') && !isLaterShard(name))
      found.push({ ...base, name: ggufModelName(name), kind: 'gguf' });
  }
  return found;
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
