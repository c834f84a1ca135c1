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
    const gguf = info?.isDirectory() ? await ggufOfFolder(full) : null;
    if (gguf) found.push({ ...base, name, path: path.join(full, gguf), label: gguf, kind: 'gguf' });
    else if (info?.isDirectory()) found.push({ ...base, name, kind: 'folder' });
    else if (info?.isFile() && name.toLowerCase().endsWith('.gguf') && !isLaterShard(name))
      found.push({ ...base, name: ggufModelName(name), kind: 'gguf' });
  }
  return found;
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
