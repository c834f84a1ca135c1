import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { PRIVATE_FILE_MODE } from '../../private-files';

/**
 * Writes a file through `write` so that `path` only ever holds a complete export: the bytes go
 * to a `.partial` sibling that is renamed over `path` once `write` resolves, and removed when
 * it fails (a half-written trace that looks whole is worse than none). The file is 0600: it
 * holds the user's requests. Resolves to what
 * `write` resolved to.
 */
export async function saveFileAtomically<T>(path: string, write: (out: Writable) => Promise<T>): Promise<T> {
  const partial = `${path}.partial-${process.pid}`;
  try {
    const result = await write(createWriteStream(partial, { mode: PRIVATE_FILE_MODE }));
    await rename(partial, path);
    return result;
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
