import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** One visible entry of a folder, with a link followed to what it points at. */
export interface DirEntry {
  name: string;
  path: string;
  isDir: boolean;
  isFile: boolean;
  size: number;
}

/** Entries read from one folder at most: a store's folder holding more is read in part. */
export const MAX_DIR_ENTRIES = 10_000;

/**
 * The visible entries of `dir` (dot-names skipped), sorted by name, links followed (a broken
 * link is left out). A missing folder has none; any other failure throws (the caller says why).
 */
export async function entriesOf(dir: string): Promise<DirEntry[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: DirEntry[] = [];
  for (const name of names.sort().slice(0, MAX_DIR_ENTRIES)) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    // A broken link or an entry removed meanwhile is not a model: left out.
    const info = await stat(full).catch(() => null);
    if (info)
      entries.push({ name, path: full, isDir: info.isDirectory(), isFile: info.isFile(), size: info.size });
  }
  return entries;
}
