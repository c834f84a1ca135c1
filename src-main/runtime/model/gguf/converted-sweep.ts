// The converted folders of GGUF files that are gone: a 1B model's conversion is as large as the
// file itself, and nothing else would ever remove it once the user deletes the .gguf.

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CONVERTED_FILES } from './gguf-convert';
import type { ConversionRecord } from './gguf-convert';

/** A converted folder the sweep removed, and why. */
export interface SweptConversion {
  dir: string;
  reason: 'source-removed' | 'source-changed';
}

/**
 * Removes each finished conversion under `root` whose GGUF file is gone, or was replaced by a
 * different file under the same path (`listedDirs`: each listed GGUF's path → the folder its
 * current contents convert into). A folder whose record does not name its file (written before
 * records did) is left alone: nothing says whose it is. Best effort; returns what it removed and
 * tells `onProblem` what it could not.
 */
export function sweepConversions(
  root: string,
  listedDirs: ReadonlyMap<string, string>,
  onProblem: (dir: string, why: string) => void,
): SweptConversion[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return []; // nothing converted yet
  }
  const swept: SweptConversion[] = [];
  for (const name of names) {
    const dir = path.join(root, name);
    const sourcePath = recordedSourceOf(dir);
    if (sourcePath === null) continue;
    const listedDir = listedDirs.get(sourcePath);
    const reason = !existsSync(sourcePath)
      ? 'source-removed'
      : listedDir !== undefined && path.resolve(listedDir) !== path.resolve(dir)
        ? 'source-changed'
        : null;
    if (reason === null) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      swept.push({ dir, reason });
    } catch (error) {
      onProblem(dir, (error as Error).message);
    }
  }
  return swept;
}

/** The GGUF path a finished conversion's record names, or null (no record, an older one, unreadable). */
function recordedSourceOf(dir: string): string | null {
  try {
    const record = JSON.parse(
      readFileSync(path.join(dir, CONVERTED_FILES.record), 'utf8'),
    ) as Partial<ConversionRecord>;
    return typeof record.sourcePath === 'string' ? record.sourcePath : null;
  } catch {
    return null; // a folder being written (no record yet) or not a conversion: not the sweep's to judge
  }
}
