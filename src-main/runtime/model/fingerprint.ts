import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ONNX_DIRS } from './variants';

/**
 * A cheap identity of a model folder's files: name, size and mtime of everything in the folder
 * and its onnx/ subfolder. Equal fingerprints mean listing would read the same bytes, so the
 * catalogue reuses the folder's entries instead of re-reading config, tokenizer and graphs.
 */
export async function folderFingerprint(folder: string): Promise<string> {
  const parts: string[] = [];
  for (const sub of ONNX_DIRS) {
    const dir = path.join(folder, sub);
    const names = await readdir(dir).catch(() => null);
    if (names === null) {
      parts.push(`${sub}/:absent`);
      continue;
    }
    for (const name of names.sort()) {
      const info = await stat(path.join(dir, name)).catch(
        (error: NodeJS.ErrnoException) => error.code ?? 'error',
      );
      parts.push(
        typeof info === 'string'
          ? `${sub}/${name}:${info}`
          : `${sub}/${name}:${info.size}:${info.mtimeMs}:${info.mode}`,
      );
    }
  }
  return parts.join('\n');
}
