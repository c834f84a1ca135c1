// The conversion cache: one converted folder per GGUF file under the data folder's
// `ort-graphs/gguf/`, as large as the file itself. The user sees its size and may clear it; a
// folder a loaded (or loading, or converting) model reads is kept, and a cleared model converts
// again at its next load (prepare-gguf.ts finds no finished folder).

import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { CONVERTED_FILES } from './gguf-convert';
import type { ConversionRecord } from './gguf-convert';

/** One converted folder: the GGUF file it came from (null when its record does not say), its bytes on disk. */
export interface ConvertedFolder {
  dir: string;
  sourcePath: string | null;
  numBytes: number;
  /** A model that is loaded, loading or converting reads (or writes) it: clearing keeps it. */
  isInUse: boolean;
}

/** The cache as it lies now: every folder, and the bytes a clear would free. */
export interface ConversionCacheState {
  folders: ConvertedFolder[];
  numBytes: number;
  numFreeableBytes: number;
}

/** What a clear did: the folders removed and their bytes, the folders kept in use, and any it could not remove. */
export interface ClearedConversions {
  numRemoved: number;
  numFreedBytes: number;
  numKeptInUse: number;
  problems: string[];
}

/** What a slot holds that the cache needs: its status, its conversion under way, its model's folders. */
interface SlotLike {
  status: string;
  conversion: unknown;
  model: { conversion: { dir: string } | null; graph: { onnxPath: string } };
}

/**
 * The converted folders that slots read or write now: a slot loading, loaded or unloading
 * (any status but `empty` and `failed`) or converting. A converted graph lies at
 * `<dir>/onnx/model.onnx`; other models' folders are never under the cache, so they match nothing.
 */
export function convertedDirsInUse(slots: readonly SlotLike[]): Set<string> {
  const dirs = new Set<string>();
  for (const slot of slots) {
    const isIdle = (slot.status === 'empty' || slot.status === 'failed') && !slot.conversion;
    if (isIdle) continue;
    dirs.add(slot.model.conversion?.dir ?? path.dirname(path.dirname(slot.model.graph.onnxPath)));
  }
  return dirs;
}

/** Bytes a file or folder takes on disk (allocated blocks), counted without following links. */
async function bytesOnDisk(target: string): Promise<number> {
  const stats = await stat(target).catch(() => null);
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.blocks * 512;
  const names = await readdir(target).catch(() => [] as string[]);
  let total = stats.blocks * 512;
  for (const name of names) total += await bytesOnDisk(path.join(target, name));
  return total;
}

async function recordedSourceOf(dir: string): Promise<string | null> {
  try {
    const record = JSON.parse(
      await readFile(path.join(dir, CONVERTED_FILES.record), 'utf8'),
    ) as Partial<ConversionRecord>;
    return typeof record.sourcePath === 'string' ? record.sourcePath : null;
  } catch {
    return null;
  }
}

/**
 * Whether `dir` is in use: one of `inUseDirs` (folders loaded models read or conversions
 * write), or a conversion's `.partial-…` folder beside one of them.
 */
function isInUseDir(dir: string, inUseDirs: ReadonlySet<string>): boolean {
  const resolved = path.resolve(dir);
  for (const used of inUseDirs) {
    const usedDir = path.resolve(used);
    if (resolved === usedDir || resolved.startsWith(`${usedDir}.partial`)) return true;
  }
  return false;
}

/** The folders under `root` with their sizes, in use or not (`inUseDirs`: what loaded models read). */
export async function conversionCacheOf(
  root: string | null,
  inUseDirs: ReadonlySet<string>,
): Promise<ConversionCacheState> {
  const names = root ? await readdir(root).catch(() => [] as string[]) : [];
  const folders: ConvertedFolder[] = [];
  for (const name of names.sort()) {
    const dir = path.join(root!, name);
    folders.push({
      dir,
      sourcePath: await recordedSourceOf(dir),
      numBytes: await bytesOnDisk(dir),
      isInUse: isInUseDir(dir, inUseDirs),
    });
  }
  const sum = (list: ConvertedFolder[]) => list.reduce((total, f) => total + f.numBytes, 0);
  return { folders, numBytes: sum(folders), numFreeableBytes: sum(folders.filter((f) => !f.isInUse)) };
}

/**
 * Removes every folder under `root` that no loaded model uses, asking `inUseDirs` again just
 * before each removal (a model may start loading meanwhile); best effort, said in `problems`.
 */
export async function clearConversionCache(
  root: string | null,
  inUseDirs: () => ReadonlySet<string>,
): Promise<ClearedConversions> {
  const state = await conversionCacheOf(root, inUseDirs());
  const cleared: ClearedConversions = { numRemoved: 0, numFreedBytes: 0, numKeptInUse: 0, problems: [] };
  for (const folder of state.folders) {
    if (isInUseDir(folder.dir, inUseDirs())) {
      cleared.numKeptInUse += 1;
      continue;
    }
    try {
      await rm(folder.dir, { recursive: true, force: true });
      cleared.numRemoved += 1;
      cleared.numFreedBytes += folder.numBytes;
    } catch (error) {
      cleared.problems.push(`${path.basename(folder.dir)}: ${(error as Error).message}`);
    }
  }
  return cleared;
}
