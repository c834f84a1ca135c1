// The Hugging Face cache (huggingface_hub's layout): `models--<org>--<name>/` holds `refs/main`
// (the commit checked out), `snapshots/<commit>/` (the repository's files, as links into
// `blobs/`) and `blobs/`. ONNX model folders and GGUF files inside a snapshot are listed; other
// repositories (PyTorch, datasets) are not models First Frame runs and are left out.

import { readFile } from 'node:fs/promises';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ggufModelName } from '../gguf/gguf-files';
import { entriesOf } from './dir-entries';
import type { DirEntry } from './dir-entries';
import type { FoundModel } from './found-model';
import { folderFound, ggufFound, isGgufModelFile } from './lm-studio-models';

/** How deep inside a snapshot model folders and GGUF files are looked for. */
const MAX_DEPTH = 4;
const COMMIT = /^[0-9a-f]{40}$/;

/** Every ONNX model folder and GGUF model of the cache at `root`, named by repository. */
export async function hfCacheModels(root: string): Promise<FoundModel[]> {
  const found: FoundModel[] = [];
  for (const repo of await entriesOf(root)) {
    if (!repo.isDir || !repo.name.startsWith('models--')) continue;
    const id = repo.name.slice('models--'.length).split('--').join('/');
    const snapshot = await snapshotOf(repo.path);
    if (snapshot) found.push(...(await snapshotModels(id, snapshot)));
  }
  return found;
}

/** The snapshot `refs/main` names, else the newest one; null when the repository has none. */
async function snapshotOf(repo: string): Promise<string | null> {
  const ref = await readFile(path.join(repo, 'refs', 'main'), 'utf8').catch(() => null);
  const commit = ref?.trim() ?? '';
  if (COMMIT.test(commit)) {
    const dir = path.join(repo, 'snapshots', commit);
    if ((await stat(dir).catch(() => null))?.isDirectory()) return dir;
  }
  const snapshots = (await entriesOf(path.join(repo, 'snapshots'))).filter((e) => e.isDir);
  const dated = await Promise.all(
    snapshots.map(async (s) => ({ dir: s.path, mtimeMs: (await stat(s.path)).mtimeMs })),
  );
  return dated.sort((a, b) => b.mtimeMs - a.mtimeMs)[0]?.dir ?? null;
}

/** The models of one snapshot: the repository's name for a lone one, `id/<path or file>` when several. */
async function snapshotModels(id: string, snapshot: string): Promise<FoundModel[]> {
  const folders: string[] = [];
  const ggufs: DirEntry[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    const entries = await entriesOf(dir);
    if (await isModelFolder(dir, entries)) {
      folders.push(dir);
      return;
    }
    ggufs.push(...entries.filter(isGgufModelFile));
    if (depth + 1 < MAX_DEPTH) for (const sub of entries) if (sub.isDir) await visit(sub.path, depth + 1);
  };
  await visit(snapshot, 0);
  const isAlone = folders.length + ggufs.length === 1;
  const named = (rel: string) => (isAlone || rel === '' ? id : `${id}/${rel}`);
  return [
    ...folders.map((dir) => folderFound('hf-cache', named(relative(snapshot, dir)), dir)),
    ...ggufs.map((file) => ggufFound('hf-cache', named(ggufModelName(file.name)), file)),
  ];
}

/** A folder First Frame reads as a model: genai_config.json, or config.json with an ONNX file (root or onnx/). */
async function isModelFolder(dir: string, entries: DirEntry[]): Promise<boolean> {
  const has = (name: string) => entries.some((e) => e.name === name);
  if (has('genai_config.json')) return true;
  if (!has('config.json')) return false;
  if (entries.some((e) => e.isFile && e.name.endsWith('.onnx'))) return true;
  const onnx = entries.find((e) => e.isDir && e.name === 'onnx');
  return onnx !== undefined && (await entriesOf(onnx.path)).some((e) => e.name.endsWith('.onnx'));
}

function relative(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join('/');
}
