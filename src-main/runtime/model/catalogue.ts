import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadModelFolder } from './load-folder';
import type { ModelFolder } from './load-folder';
import { RevisionCache } from './revisions';
import type { ContentRevisions } from './revisions';

/** A model folder with its content revisions, ready for a slot to prepare. */
export interface CatalogueModel {
  modelId: string;
  isBundled: boolean;
  folder: ModelFolder;
  revisions: ContentRevisions;
}

/** What the catalogue knows about a folder: loaded, or the reason it cannot be. */
export type CatalogueEntry =
  | { modelId: string; path: string; isBundled: boolean; status: 'ok'; model: CatalogueModel }
  | { modelId: string; path: string; isBundled: boolean; status: 'broken'; error: string };

/**
 * Model folders from the bundled directory and the user's models directory. Folder names are
 * model ids; a user folder with a bundled folder's name is listed as `user/<name>`.
 */
export class ModelCatalogue {
  private entries = new Map<string, CatalogueEntry>();

  constructor(
    private readonly bundledDir: string,
    private readonly userDir: string | null,
    private readonly revisions: RevisionCache,
  ) {}

  /** Rescans both directories; unchanged files are not rehashed (RevisionCache). */
  async refresh(): Promise<CatalogueEntry[]> {
    const next = new Map<string, CatalogueEntry>();
    for (const [dir, isBundled] of [
      [this.bundledDir, true],
      [this.userDir, false],
    ] as const) {
      if (!dir) continue;
      for (const name of await modelDirsIn(dir)) {
        const modelId = !isBundled && next.has(name) ? `user/${name}` : name;
        next.set(modelId, await this.inspect(modelId, path.join(dir, name), isBundled));
      }
    }
    this.entries = next;
    return this.list();
  }

  /** Every known folder, bundled first. */
  list(): CatalogueEntry[] {
    return [...this.entries.values()];
  }

  /** A loadable model by id, or an Error saying why not (unknown id, broken folder). */
  resolve(modelId: string): CatalogueModel | Error {
    const entry = this.entries.get(modelId);
    if (!entry)
      return new Error(`unknown model "${modelId}"; known: ${[...this.entries.keys()].join(', ') || 'none'}`);
    return entry.status === 'ok' ? entry.model : new Error(entry.error);
  }

  /** The first bundled model that loads, the default for requests that name none. */
  defaultModelId(): string | null {
    const ok = this.list().filter((e) => e.status === 'ok');
    return (ok.find((e) => e.isBundled) ?? ok[0])?.modelId ?? null;
  }

  private async inspect(modelId: string, dir: string, isBundled: boolean): Promise<CatalogueEntry> {
    try {
      const folder = await loadModelFolder(dir);
      const revisions = await this.revisions.revisionsOf(folder.folder);
      return {
        modelId,
        path: dir,
        isBundled,
        status: 'ok',
        model: { modelId, isBundled, folder, revisions },
      };
    } catch (error) {
      return { modelId, path: dir, isBundled, status: 'broken', error: (error as Error).message };
    }
  }
}

async function modelDirsIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const dirs: string[] = [];
  for (const name of names.sort()) {
    const info = await stat(path.join(dir, name)).catch(() => null);
    if (info?.isDirectory() && !name.startsWith('.')) dirs.push(name);
  }
  return dirs;
}
