import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Endpoint keys live one per file under `<dataDir>/endpoint-keys/`, readable by this user only
 * (0600, folder 0700), never in the history database, never sent back to a renderer, never
 * logged. Only the remote client reads a key, to build its Authorization header.
 */
export class KeyFiles {
  constructor(private readonly folder: string) {}

  /** Stores (or replaces) an endpoint's key with owner-only permissions. */
  write(endpointId: string, key: string): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    chmodSync(this.folder, 0o700);
    const file = this.fileOf(endpointId);
    writeFileSync(file, key, { encoding: 'utf8', mode: 0o600 });
    // writeFileSync keeps an existing file's mode: set it in case the file was there before.
    chmodSync(file, 0o600);
  }

  /** The key, or null when the endpoint has none (or the file cannot be read: said by the caller's error). */
  read(endpointId: string): string | null {
    try {
      return readFileSync(this.fileOf(endpointId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new Error(`the key of endpoint "${endpointId}" cannot be read: ${(error as Error).message}`);
    }
  }

  /** Deletes the key file (no-op when there is none). */
  remove(endpointId: string): void {
    rmSync(this.fileOf(endpointId), { force: true });
  }

  /** The key's file; ids are slugs (checked by the registry), so they cannot leave the folder. */
  fileOf(endpointId: string): string {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(endpointId)) throw new Error(`bad endpoint id "${endpointId}"`);
    return path.join(this.folder, `${endpointId}.key`);
  }
}
