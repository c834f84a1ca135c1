import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { modelsAt, modelsIn, uniqueNameOf } from './catalogue-sources';
import { discoverModels, placesWhenOff } from './discovery/discover';
import type { PlaceState } from './discovery/discover';
import type { FoundModel, SourceFacts } from './discovery/found-model';
import type { DiscoveryEnvironment } from './discovery/places';
import { folderFingerprint } from './fingerprint';
import { sweepConversions } from './gguf/converted-sweep';
import { shardPathsOf } from './gguf/gguf-files';
import type { GgufConversion } from './gguf/gguf-listing';
import type { VariantGraph } from './inspect-variant';
import { withLazyTokenizer } from '../tokenize/tokenizer-files';
import { listModel } from './listing/list-model';
import type { ListingJob, ListingResult } from './listing/listing-protocol';
import { ListingThread } from './listing/listing-thread';
import type { ModelFolder } from './load-folder';
import type { ModelSource } from './model-sources';
import { RevisionCache } from './revisions';
import type { ContentRevisions } from './revisions';
import { unusableSentence } from './listing-status';
import type { UnusableStatus } from './listing-status';
import { fileRefOf } from './variant-names';
import { GGUF_VARIANT, idVariantOf, modelRefOf } from './variants';
import type { VariantName } from './variants';

/**
 * One variant of a model folder, ready for a slot to prepare. `modelId` is its canonical
 * reference `name:variant`, the variant named by its weights (idVariantOf: `ff-austen-mini:fp16`
 * for a `model.onnx` holding fp16); the file's own reference (`ff-austen-mini:fp32`) still
 * resolves to it, and a bare `name` resolves to the folder's default variant.
 */
export interface CatalogueModel {
  modelId: string;
  /** The folder's model name (the folder name, or `user/<name>` when a bundled model has it). */
  name: string;
  variant: VariantName;
  isDefaultVariant: boolean;
  isBundled: boolean;
  /** Where it was found (bundled, the models folder, or a store discovery read). */
  source: ModelSource;
  /** What that store says about it (Ollama's parameters, template, system prompt), or null. */
  facts: SourceFacts | null;
  folder: ModelFolder;
  graph: VariantGraph;
  revisions: ContentRevisions;
  /** The conversion its first load does (a GGUF not yet converted), or null. */
  conversion: GgufConversion | null;
}

/** Fields every catalogue entry has, loaded or not. */
interface EntryBase {
  modelId: string;
  name: string;
  /**
   * The file's variant (`fp32` for `model.onnx`, whatever its weights), which the id may not
   * name; null when the whole model cannot run (a folder's config, tokenizer, no ONNX file; a GGUF's file).
   */
  variant: VariantName | null;
  isDefaultVariant: boolean;
  path: string;
  isBundled: boolean;
  source: ModelSource;
  facts: SourceFacts | null;
}

/** An entry that cannot run: not supported yet, or broken, with the reason. */
export type UnusableEntry = EntryBase & { status: UnusableStatus; error: string };

/** What the catalogue knows about one variant (or a whole unusable model): loaded, or why not. */
export type CatalogueEntry = (EntryBase & { status: 'ok'; model: CatalogueModel }) | UnusableEntry;

/** Whether discovery reads the usual places (off until the user turns it on), and from where. */
export interface CatalogueDiscovery {
  isEnabled: boolean;
  environment: DiscoveryEnvironment;
}

interface Scan {
  fingerprint: string;
  entries: CatalogueEntry[];
}

/**
 * Model folders and GGUF files from the bundled directory, the user's models directory and,
 * when discovery is on, the stores of Ollama, LM Studio and the Hugging Face cache (read in
 * place), one entry per variant. A folder or file that has not changed is not re-read.
 */
export class ModelCatalogue {
  private entries = new Map<string, CatalogueEntry>();
  private readonly scans = new Map<string, Scan>();
  private lastPlaces: PlaceState[] | null = null;

  constructor(
    private readonly bundledDir: string,
    private readonly userDir: string | null,
    private readonly revisions: RevisionCache,
    /** Mutable: the runtime turns discovery on and off; the next refresh reads accordingly. */
    readonly discovery: CatalogueDiscovery | null = null,
    /** Where GGUF models are converted into (the graph cache's `gguf/`); null: GGUFs are listed, not run. */
    private readonly convertedDir: string | null = null,
    /** Models named by path (FOLDER or FILE.gguf), listed as the models folder's; one already found is not listed twice. */
    private readonly modelPaths: readonly string[] = [],
    /** Where models are read and checked: a worker thread, within a time and memory budget per model. */
    private readonly listing: ListingThread = new ListingThread(),
  ) {}

  /** Rescans every source; unchanged folders keep their entries, unchanged files their hashes. */
  async refresh(): Promise<CatalogueEntry[]> {
    const inFolders = [
      ...(await modelsIn(this.bundledDir, 'bundled')),
      ...(this.userDir ? await modelsIn(this.userDir, 'models-folder') : []),
    ];
    const named = await modelsAt(this.modelPaths);
    const found = [
      ...inFolders,
      ...named.filter((m) => !inFolders.some((f) => f.path === m.path)),
      ...(await this.discovered()),
    ];
    const next = new Map<string, CatalogueEntry>();
    const names = new Set<string>();
    try {
      for (const model of found) {
        const name = uniqueNameOf(model, names);
        names.add(name);
        for (const entry of await this.scan({ ...model, name })) next.set(entry.modelId, entry);
      }
    } finally {
      // What the listing thread built (headers, vocabularies) is freed between refreshes.
      await this.listing.close();
    }
    this.entries = next;
    for (const key of this.scans.keys())
      if (![...next.values()].some((e) => e.path === key)) this.scans.delete(key);
    this.sweepConverted();
    return this.list();
  }

  /** Removes the conversions of GGUF files that were removed or replaced since they were converted. */
  private sweepConverted(): void {
    if (!this.convertedDir) return;
    const listedDirs = new Map<string, string>();
    for (const entry of this.entries.values())
      if (entry.status === 'ok' && entry.variant === GGUF_VARIANT)
        listedDirs.set(path.resolve(entry.path), path.dirname(path.dirname(entry.model.graph.onnxPath)));
    const swept = sweepConversions(this.convertedDir, listedDirs, (dir, why) =>
      console.warn(`converted GGUF ${dir} could not be removed: ${why}`),
    );
    for (const { dir, reason } of swept)
      console.warn(
        `converted GGUF ${dir} removed: its file was ${reason === 'source-removed' ? 'removed' : 'replaced'}`,
      );
  }

  /** Every entry: bundled folders first, each folder's variants in default-preference order. */
  list(): CatalogueEntry[] {
    return [...this.entries.values()];
  }

  /** The places discovery reads and what each held at the last refresh (all `off` while it is off). */
  places(): PlaceState[] {
    if (!this.discovery) return [];
    return this.discovery.isEnabled && this.lastPlaces
      ? this.lastPlaces
      : placesWhenOff(this.discovery.environment);
  }

  /** A loadable variant by reference (`name` or `name:variant`), or an Error saying why not. */
  resolve(ref: string): CatalogueModel | Error {
    const entry = findEntry(this.list(), ref);
    if (!entry) {
      // `name:tag` of a known folder: say which tags it has (the tag may be no variant name at all).
      const colonAt = ref.lastIndexOf(':');
      const name = ref.slice(0, Math.max(0, colonAt));
      const variants = this.list().flatMap((e) =>
        e.name === name && e.variant ? [e.modelId.slice(name.length + 1)] : [],
      );
      if (variants.length > 0)
        return new Error(
          `${name} has no variant "${ref.slice(colonAt + 1)}"; its variants: ${variants.join(', ')}`,
        );
      const known = [...new Set(this.list().map((e) => e.name))].join(', ') || 'none';
      return new Error(`unknown model "${ref}"; known: ${known}`);
    }
    return entry.status === 'ok' ? entry.model : new Error(refusalOf(entry));
  }

  /** The entry a reference names (see findEntry). */
  entryOf(ref: string): CatalogueEntry | undefined {
    return findEntry(this.list(), ref);
  }

  /** The default variant of the first bundled model that loads: requests that name no model get it. */
  defaultModelId(): string | null {
    const ok = this.list().filter((e) => e.status === 'ok');
    const pick = (entries: CatalogueEntry[]) => entries.find((e) => e.isDefaultVariant) ?? entries[0];
    return (pick(ok.filter((e) => e.isBundled)) ?? pick(ok))?.modelId ?? null;
  }

  /** What discovery finds now (nothing while it is off); the places' states are kept for `places()`. */
  private async discovered(): Promise<FoundModel[]> {
    if (!this.discovery?.isEnabled) return [];
    const { models, places } = await discoverModels(this.discovery.environment);
    this.lastPlaces = places;
    return models;
  }

  /** A model's entries, reused while its fingerprint (folder files, or the GGUF's size and mtime) holds. */
  private async scan(found: FoundModel): Promise<CatalogueEntry[]> {
    const fingerprint =
      found.kind === 'folder' ? await folderFingerprint(found.path) : await ggufFingerprint(found.path);
    const key = found.path;
    const previous = this.scans.get(key);
    const reusable = previous?.entries[0];
    // A GGUF listed as converted whose converted folder was cleared since lists again (to convert).
    const isConversionGone =
      reusable?.status === 'ok' &&
      reusable.variant === GGUF_VARIANT &&
      reusable.model.conversion === null &&
      !existsSync(reusable.model.graph.onnxPath);
    if (
      previous?.fingerprint === fingerprint &&
      reusable?.name === found.name &&
      reusable.source === found.source &&
      !isConversionGone
    )
      return previous.entries;
    const entries = found.kind === 'folder' ? await this.inspect(found) : [await this.ggufEntry(found)];
    this.scans.set(key, { fingerprint, entries });
    return entries;
  }

  /** A GGUF model: loadable (converted on its first load), or listed with why not (or its store's problem). */
  private async ggufEntry(found: FoundModel): Promise<CatalogueEntry> {
    const variant: VariantName = GGUF_VARIANT;
    const base = { ...baseOf(found), modelId: modelRefOf(found.name, variant), variant };
    if (found.problem)
      return { ...baseOf(found), status: 'broken', error: `${found.label}: ${found.problem}` };
    const listing = await this.listed(found, {
      kind: 'gguf',
      path: found.path,
      convertedDir: this.convertedDir,
      defaultSampling: found.facts?.defaultSampling ?? null,
    });
    // A broken file's reason names the file; an unsupported one's is about the kind, not the file.
    if (listing.status !== 'ok') {
      const error = listing.status === 'broken' ? `${found.label}: ${listing.problem}` : listing.problem;
      return { ...baseOf(found), status: listing.status, error };
    }
    const { graph, revisions, conversion } = listing.gguf!;
    const folder = withLazyTokenizer(listing.folder, listing.tokenizerFacts);
    return { ...base, status: 'ok', model: { ...base, folder, graph, revisions, conversion } };
  }

  /**
   * What listing makes of a model. A bundled model ships with the app and is listed once, at
   * start, before anything is served: it is read here, sparing every start a thread's start-up,
   * and keeps its tokenizer here (short prompts encode inline). Any other file may be anything,
   * so it is read in the listing thread, within its budgets, and its tokenizer comes back as
   * facts: this thread never builds it (a 128k-token vocabulary takes hundreds of milliseconds).
   */
  private async listed(found: FoundModel, job: Omit<ListingJob, 'id'>): Promise<ListingResult> {
    if (found.source === 'bundled') return listModel({ ...job, id: 0 });
    return this.listing.list({ ...job, isSendingTokenizer: true });
  }

  private async inspect(found: FoundModel): Promise<CatalogueEntry[]> {
    const base = baseOf(found);
    const listing = await this.listed(found, {
      kind: 'folder',
      path: found.path,
      convertedDir: null,
      defaultSampling: null,
    });
    if (listing.status !== 'ok') return [{ ...base, status: 'broken', error: listing.problem }];
    const folder = withLazyTokenizer(listing.folder, listing.tokenizerFacts);
    const entries: CatalogueEntry[] = [];
    const fileVariants = folder.variants.map((v) => v.found.variant);
    for (const variant of folder.variants) {
      const weightDtype = variant.status === 'broken' ? null : variant.graph.weightDtype;
      const at = {
        ...base,
        modelId: modelRefOf(found.name, idVariantOf(variant.found.variant, weightDtype, fileVariants)),
        variant: variant.found.variant,
        isDefaultVariant: variant.found.variant === folder.defaultVariant,
      };
      if (variant.status === 'broken') {
        entries.push({ ...at, status: 'broken', error: variant.error });
        continue;
      }
      const revisions = await this.revisions.revisionsOf(folder.folder, variant.graph);
      const model = { ...at, folder, graph: variant.graph, revisions, conversion: null };
      entries.push({ ...at, status: 'ok', model });
    }
    return entries;
  }
}

/**
 * The entry a reference names among `entries`: an exact id, a variant's old id (its file's
 * variant: `name:fp32` for a `model.onnx` now listed by its fp16 weights), a name's default
 * variant (names may hold a colon: `llama3.2:3b`), or, for `name:tag` of a model that cannot
 * run as a whole (no variants listed), that model's entry, so the answer is its reason rather
 * than "unknown model".
 */
export function findEntry(entries: readonly CatalogueEntry[], ref: string): CatalogueEntry | undefined {
  const exact = entries.find((e) => e.modelId === ref) ?? entries.find((e) => fileRefOf(e) === ref);
  if (exact) return exact;
  const ofName = entries.filter((e) => e.name === ref);
  const byName = ofName.find((e) => e.isDefaultVariant) ?? ofName.find((e) => e.variant === null);
  if (byName) return byName;
  const name = ref.slice(0, Math.max(0, ref.lastIndexOf(':')));
  return entries.find((e) => e.name === name && e.variant === null);
}

/**
 * Why a request for an unusable entry is refused: a broken entry's reason already names its file
 * and fault; an unsupported one's names what is not supported, so the model's name leads.
 */
export function refusalOf(entry: UnusableEntry): string {
  return entry.status === 'broken'
    ? entry.error
    : `${entry.name}: ${unusableSentence(entry.status, entry.error)}`;
}

/** An entry's fields before its folder is read: a whole-model entry under the bare name. */
function baseOf(found: FoundModel): EntryBase {
  return {
    modelId: found.name,
    name: found.name,
    variant: null,
    isDefaultVariant: true,
    path: found.path,
    isBundled: found.source === 'bundled',
    source: found.source,
    facts: found.facts,
  };
}

/** Size and mtime of each file of a GGUF set (or why not): its headers are read again only when they change. */
async function ggufFingerprint(file: string): Promise<string> {
  const parts: string[] = [];
  for (const shard of shardPathsOf(file)) {
    const info = await stat(shard).catch((error: NodeJS.ErrnoException) => error.code ?? 'error');
    parts.push(typeof info === 'string' ? `${path.basename(shard)}:${info}` : `${info.size}:${info.mtimeMs}`);
  }
  return parts.join('\n');
}
