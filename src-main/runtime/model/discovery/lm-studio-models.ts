// LM Studio's models folder: `<publisher>/<model>/<file>.gguf` as it downloads them (GGUF files
// and split sets), and MLX folders (safetensors) it also keeps there, listed with their reason.

import path from 'node:path';
import { ggufModelName, isLaterShard } from '../gguf/gguf-files';
import { entriesOf } from './dir-entries';
import type { DirEntry } from './dir-entries';
import type { FoundModel } from './found-model';

/** How deep under the models folder files are looked for (publisher/model/file is 3). */
const MAX_DEPTH = 3;

/** Every GGUF model (by its file name) and model folder (`publisher/model`) under `root`. */
export async function lmStudioModels(root: string): Promise<FoundModel[]> {
  const found: FoundModel[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    const entries = await entriesOf(dir);
    const ggufs = entries.filter(isGgufModelFile);
    for (const file of ggufs) found.push(ggufFound('lm-studio', ggufModelName(file.name), file));
    if (ggufs.length === 0 && depth === MAX_DEPTH - 1 && entries.some((e) => e.name === 'config.json'))
      found.push(folderFound('lm-studio', path.relative(root, dir).split(path.sep).join('/'), dir));
    if (depth + 1 < MAX_DEPTH) for (const sub of entries) if (sub.isDir) await visit(sub.path, depth + 1);
  };
  await visit(root, 0);
  return found;
}

/**
 * A GGUF file that is a model: the first shard of a split set or a single file. A vision
 * projector (`mmproj-….gguf`, kept beside the model it serves) is part of another model, not one.
 */
export function isGgufModelFile(entry: DirEntry): boolean {
  const lower = entry.name.toLowerCase();
  return entry.isFile && lower.endsWith('.gguf') && !isLaterShard(entry.name) && !lower.startsWith('mmproj');
}

/** A GGUF file found in a store. */
export function ggufFound(source: FoundModel['source'], name: string, file: DirEntry): FoundModel {
  return { source, name, path: file.path, kind: 'gguf', label: file.name, facts: null, problem: null };
}

/** A model folder found in a store. */
export function folderFound(source: FoundModel['source'], name: string, dir: string): FoundModel {
  return { source, name, path: dir, kind: 'folder', label: path.basename(dir), facts: null, problem: null };
}
