import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelShape } from './config';
import type { VariantGraph } from './inspect-variant';
import { tokenizerFilePaths } from '../tokenize/tokenizer-files';

/** Content identities of a model folder (docs/design.md): change any byte, get a new revision. */
export interface ContentRevisions {
  /** sha256 of the variant's ONNX file and its external data files (one revision per variant). */
  modelRevision: string;
  /** sha256 of tokenizer.json + tokenizer_config.json (+ chat_template.jinja): the tokens and the chat template. */
  tokenizerRevision: string;
}

interface CacheEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * Hashes files by content, remembering (path, size, mtime) → hash in a JSON file so a restart
 * does not rehash unchanged weights. A changed size or mtime always rehashes.
 */
export class RevisionCache {
  private entries: Record<string, CacheEntry> | null = null;

  constructor(private readonly cacheFile: string | null) {}

  /** Revisions of one variant's weight files and the folder's tokenizer files. */
  async revisionsOf(folder: string, graph: VariantGraph): Promise<ContentRevisions> {
    const modelRevision = await this.hashFiles([graph.onnxPath, ...graph.externalData.map((f) => f.path)]);
    const tokenizerRevision = await this.hashFiles(tokenizerFilePaths(folder));
    return { modelRevision, tokenizerRevision };
  }

  /** sha256 over the files' hashes in order (a single file's hash when there is one). */
  async hashFiles(files: readonly string[]): Promise<string> {
    const hashes: string[] = [];
    for (const file of files) hashes.push(await this.hashFile(file));
    return hashes.length === 1 ? hashes[0]! : sha256(hashes.join('\n'));
  }

  private async hashFile(file: string): Promise<string> {
    const entries = await this.load();
    const info = await stat(file).catch(() => null);
    if (!info) return sha256(`missing:${path.basename(file)}`);
    const cached = entries[file];
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) return cached.sha256;
    const digest = await hashStream(file);
    entries[file] = { size: info.size, mtimeMs: info.mtimeMs, sha256: digest };
    await this.save();
    return digest;
  }

  private async load(): Promise<Record<string, CacheEntry>> {
    if (this.entries) return this.entries;
    this.entries = {};
    if (!this.cacheFile) return this.entries;
    try {
      this.entries = JSON.parse(await readFile(this.cacheFile, 'utf8')) as Record<string, CacheEntry>;
    } catch {
      this.entries = {}; // no cache yet, or a damaged one: every file is simply hashed again
    }
    return this.entries;
  }

  private async save(): Promise<void> {
    if (!this.cacheFile || !this.entries) return;
    await mkdir(path.dirname(this.cacheFile), { recursive: true });
    await writeFile(this.cacheFile, JSON.stringify(this.entries));
  }
}

/**
 * Identity of the K/V layout a context page was written in: dtype, geometry and page size.
 * Any change makes every old page a miss (fail closed).
 */
export function layoutRevisionOf(shape: ModelShape, pageSize: number, kvDtype: string): string {
  const fields = [kvDtype, shape.numLayers, shape.numKvHeads, shape.headDim, pageSize];
  return sha256(`kv-layout:${fields.join(':')}`).slice(0, 16);
}

/** Hex sha256 of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function hashStream(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file, { highWaterMark: 4 << 20 })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
