import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { folderFingerprint } from './fingerprint';
import { ggufModelName, isLaterShard } from './gguf/gguf-files';
import { ggufListingProblem } from './gguf/gguf-listing';
import type { VariantGraph } from './inspect-variant';
import { loadModelFolder } from './load-folder';
import type { ModelFolder } from './load-folder';
import { RevisionCache } from './revisions';
import type { ContentRevisions } from './revisions';
import { modelRefOf, parseModelRef } from './variants';
import type { VariantName } from './variants';

/**
 * One variant of a model folder, ready for a slot to prepare. `modelId` is its canonical
 * reference `name:variant`; a bare `name` resolves to the folder's default variant.
 */
export interface CatalogueModel {
  modelId: string;
  /** The folder's model name (the folder name, or `user/<name>` when a bundled model has it). */
  name: string;
  variant: VariantName;
  isDefaultVariant: boolean;
  isBundled: boolean;
  folder: ModelFolder;
  graph: VariantGraph;
  revisions: ContentRevisions;
}

/** Fields every catalogue entry has, loaded or not. */
interface EntryBase {
  modelId: string;
  name: string;
  /** Null when the whole folder is broken (config, tokenizer, no ONNX file). */
  variant: VariantName | null;
  isDefaultVariant: boolean;
  path: string;
  isBundled: boolean;
}

/** What the catalogue knows about one variant (or a whole broken folder): loaded, or why not. */
export type CatalogueEntry =
  (EntryBase & { status: 'ok'; model: CatalogueModel }) | (EntryBase & { status: 'broken'; error: string });

interface FolderScan {
  fingerprint: string;
  entries: CatalogueEntry[];
}

/**
 * Model folders from the bundled directory and the user's models directory, one entry per
 * variant. Folder names are model names; a user folder with a bundled folder's name is listed
 * as `user/<name>`. A folder whose files have not changed (names, sizes, mtimes) is not re-read.
 */
export class ModelCatalogue {
  private entries = new Map<string, CatalogueEntry>();
  private readonly scans = new Map<string, FolderScan>();

  constructor(
    private readonly bundledDir: string,
    private readonly userDir: string | null,
    private readonly revisions: RevisionCache,
  ) {}

  /** Rescans both directories; unchanged folders keep their entries, unchanged files their hashes. */
  async refresh(): Promise<CatalogueEntry[]> {
    const next = new Map<string, CatalogueEntry>();
    const names = new Set<string>();
    for (const [dir, isBundled] of [
      [this.bundledDir, true],
      [this.userDir, false],
    ] as const) {
      if (!dir) continue;
      for (const source of await modelSourcesIn(dir)) {
        const name = !isBundled && names.has(source.name) ? `user/${source.name}` : source.name;
        names.add(name);
        const found =
          source.kind === 'gguf'
            ? [ggufFileEntry(name, source.path, isBundled)]
            : await this.scan(name, source.path, isBundled);
        for (const entry of found) next.set(entry.modelId, entry);
      }
    }
    this.entries = next;
    for (const key of this.scans.keys())
      if (![...next.values()].some((e) => e.path === key)) this.scans.delete(key);
    return this.list();
  }

  /** Every entry: bundled folders first, each folder's variants in default-preference order. */
  list(): CatalogueEntry[] {
    return [...this.entries.values()];
  }

  /** A loadable variant by reference (`name` or `name:variant`), or an Error saying why not. */
  resolve(ref: string): CatalogueModel | Error {
    const entry = this.entryOf(ref);
    if (!entry) {
      // `name:tag` of a known folder: say which tags it has (the tag may be no variant name at all).
      const colonAt = ref.lastIndexOf(':');
      const name = ref.slice(0, Math.max(0, colonAt));
      const variants = this.list().flatMap((e) => (e.name === name && e.variant ? [e.variant] : []));
      if (variants.length > 0)
        return new Error(
          `${name} has no variant "${ref.slice(colonAt + 1)}"; its variants: ${variants.join(', ')}`,
        );
      const known = [...new Set(this.list().map((e) => e.name))].join(', ') || 'none';
      return new Error(`unknown model "${ref}"; known: ${known}`);
    }
    return entry.status === 'ok' ? entry.model : new Error(entry.error);
  }

  /** The entry a reference names: exact id, or a bare name's default variant (or its folder error). */
  entryOf(ref: string): CatalogueEntry | undefined {
    const exact = this.entries.get(ref);
    if (exact) return exact;
    const { name, variant } = parseModelRef(ref);
    if (variant !== null) return undefined;
    const ofName = this.list().filter((e) => e.name === name);
    return ofName.find((e) => e.isDefaultVariant) ?? ofName.find((e) => e.variant === null);
  }

  /** The default variant of the first bundled model that loads: requests that name no model get it. */
  defaultModelId(): string | null {
    const ok = this.list().filter((e) => e.status === 'ok');
    const pick = (entries: CatalogueEntry[]) => entries.find((e) => e.isDefaultVariant) ?? entries[0];
    return (pick(ok.filter((e) => e.isBundled)) ?? pick(ok))?.modelId ?? null;
  }

  private async scan(name: string, dir: string, isBundled: boolean): Promise<CatalogueEntry[]> {
    const fingerprint = await folderFingerprint(dir);
    const previous = this.scans.get(dir);
    if (previous && previous.fingerprint === fingerprint && previous.entries[0]?.name === name)
      return previous.entries;
    const entries = await this.inspect(name, dir, isBundled);
    this.scans.set(dir, { fingerprint, entries });
    return entries;
  }

  private async inspect(name: string, dir: string, isBundled: boolean): Promise<CatalogueEntry[]> {
    let folder: ModelFolder;
    try {
      folder = loadModelFolder(dir);
    } catch (error) {
      const base = { modelId: name, name, variant: null, isDefaultVariant: true, path: dir, isBundled };
      return [{ ...base, status: 'broken', error: (error as Error).message }];
    }
    const entries: CatalogueEntry[] = [];
    for (const variant of folder.variants) {
      const base = {
        modelId: modelRefOf(name, variant.found.variant),
        name,
        variant: variant.found.variant,
        isDefaultVariant: variant.found.variant === folder.defaultVariant,
        path: dir,
        isBundled,
      };
      if (variant.status === 'broken') {
        entries.push({ ...base, status: 'broken', error: variant.error });
        continue;
      }
      const revisions = await this.revisions.revisionsOf(folder.folder, variant.graph);
      entries.push({ ...base, status: 'ok', model: { ...base, folder, graph: variant.graph, revisions } });
    }
    return entries;
  }
}

/** A model in a models directory: a folder, or a GGUF file (a split set by its first shard). */
interface ModelSource {
  name: string;
  path: string;
  kind: 'folder' | 'gguf';
}

async function modelSourcesIn(dir: string): Promise<ModelSource[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const sources: ModelSource[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    const info = await stat(full).catch(() => null);
    if (info?.isDirectory()) sources.push({ name, path: full, kind: 'folder' });
    else if (info?.isFile() && name.toLowerCase().endsWith('.gguf') && !isLaterShard(name))
      sources.push({ name: ggufModelName(name), path: full, kind: 'gguf' });
  }
  return sources;
}

/** A GGUF file in the models directory, listed with what it is and why it cannot load yet. */
function ggufFileEntry(name: string, file: string, isBundled: boolean): CatalogueEntry {
  const base = { modelId: name, name, variant: null, isDefaultVariant: true, path: file, isBundled };
  return { ...base, status: 'broken', error: `${path.basename(file)}: ${ggufListingProblem(file)}` };
}
