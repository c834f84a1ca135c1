import { createHash } from 'node:crypto';
import { readdirSync, statfsSync, unlinkSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from '../../telemetry/log/log';
import { reasonOf } from '../../telemetry/log/log';
import { PRIVATE_FILE_MODE, makePrivateFolder } from '../../private-files';
import type { ConversationLeaf, DiskPageRow, DiskPageRows } from './disk-page-rows';
import type { PageData } from './page-data';
import { sameTokens } from './page-index';
import { chainHash } from './page-key';
import type { PageIdentity } from './page-key';
import type { CachedPage } from './ram-pages';

/** A page file's name ends so; a file still being written ends in TEMP_SUFFIX and is never read. */
const PAGE_SUFFIX = '.kv';
const TEMP_SUFFIX = '.tmp';
/** Page files read at once when reading remembered context back. */
const PARALLEL_READS = 8;
/** How long completed pages gather before one batch is written (ms): off the first token's path. */
const SPILL_DELAY_MS = 50;
/** The automatic budget: this share of the free space, at most AUTO_MAX_BYTES. */
const AUTO_SHARE_OF_FREE = 0.05;
const AUTO_MAX_BYTES = 2 * 1024 ** 3;

/** How many pages removed for the budget are remembered (by disk key) to explain later misses. */
const MAX_GONE = 8_192;

/** Whether pages are being written: `on`, `off` (budget 0), or `full` (the disk refused a write). */
export type DiskTierState = 'on' | 'off' | 'full';

/** A page the disk tier read back: its row and its bytes, checked against the row. */
export interface RestoredPage {
  row: DiskPageRow;
  data: PageData;
}

/** What one read of remembered context did, for the timeline's diagnosis. */
export interface DiskRead {
  pages: RestoredPage[];
  numBytes: number;
  /** Why reading stopped before the last page asked for (the file was refused), or null. */
  refused: string | null;
}

/** What the disk tier needs from its runtime. */
export interface DiskPagesOptions {
  /** The pages folder (made 0700; every page file is 0600). */
  dir: string;
  rows: DiskPageRows;
  log: Log;
  /** The budget setting read live: bytes, 0 for off, null for automatic (see autoBudgetBytes). */
  budgetBytes(): number | null;
  wallNow(): number;
  /** Opens a file (fs/promises open; a unit test's seam to make the disk refuse writes). */
  openFile?: typeof open;
}

/** Everything but the slot revision: a page on disk outlives the slot session that wrote it. */
export function diskIdentityKey(identity: Omit<PageIdentity, 'slotRevision'>): string {
  return `${identity.modelRevision}/${identity.tokenizerRevision}/${identity.layoutRevision}`;
}

function diskKeyOf(identityKey: string, pageIndex: number, hash: string): string {
  return `${identityKey}/${pageIndex}/${hash}`;
}

function rowKey(row: DiskPageRow): string {
  return diskKeyOf(diskIdentityKey(row), row.pageIndex, row.chainHash);
}

/**
 * The disk tier under the RAM pages: each completed page is written behind the serving path
 * (batched, to a temp name, fsynced, renamed, then indexed), so a lookup that misses in RAM
 * can read it back, in this process or after a restart. Fail closed: a page is used only when
 * its identity, position, chain hash and token ids match and the file's length and checksum
 * equal its row's; anything else is a miss, deleted and told once to the log (Problems).
 * Least recently used pages go first when the budget is exceeded.
 */
export class DiskPages {
  /** Every indexed page by disk key, least recently used first. */
  private readonly byKey = new Map<string, DiskPageRow>();
  private numBytes = 0;
  private readonly queue: { row: DiskPageRow; data: PageData }[] = [];
  /** Disk keys (all but the identity) to the identities indexed under them: a miss's other revisions. */
  private readonly byChain = new Map<string, Set<DiskPageRow>>();
  /** Keys of pages removed for the budget, oldest first (at most MAX_GONE). */
  private readonly gone = new Set<string>();
  /** Keys queued or being written: spilled once. */
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private isFull = false;
  /** Reads a request waits on now: a prefetch waits until none is left (whenNoServingRead). */
  private numServingReads = 0;
  private servingReadsDone: (() => void)[] = [];
  private readonly autoBytes: number;
  /** Counters for the pages view. */
  readonly counters = { numWritten: 0, numRead: 0, numRefused: 0, numEvicted: 0 };

  constructor(private readonly options: DiskPagesOptions) {
    makePrivateFolder(options.dir);
    this.autoBytes = autoBudgetBytes(options.dir);
    const indexed = new Set<string>();
    for (const row of options.rows.all()) {
      this.index(row);
      indexed.add(row.fileName);
    }
    this.sweep(indexed);
  }

  /** Bytes of every indexed page file. */
  get bytes(): number {
    return this.numBytes;
  }

  get numPages(): number {
    return this.byKey.size;
  }

  /** The budget now (bytes; 0 is off). */
  get budgetBytes(): number {
    return this.options.budgetBytes() ?? this.autoBytes;
  }

  get state(): DiskTierState {
    if (this.budgetBytes === 0) return 'off';
    return this.isFull ? 'full' : 'on';
  }

  /** Queues a completed page to be written (nothing happens now: the batch is written later). */
  spill(page: CachedPage): void {
    if (this.state !== 'on') return;
    const { identity, pageIndex, parentHash, hash, tokenIds, data } = page;
    const key = diskKeyOf(diskIdentityKey(identity), pageIndex, hash);
    if (this.byKey.has(key) || this.pending.has(key)) return;
    this.pending.add(key);
    const row: DiskPageRow = {
      fileName: `${createHash('sha256').update(key).digest('base64url')}${PAGE_SUFFIX}`,
      modelRevision: identity.modelRevision,
      tokenizerRevision: identity.tokenizerRevision,
      layoutRevision: identity.layoutRevision,
      pageSize: tokenIds.length,
      pageIndex,
      parentHash,
      chainHash: hash,
      tokenIds,
      numBytes: data.byteLength,
      checksum: '',
      lastUsedWallMs: this.options.wallNow(),
    };
    this.queue.push({ row, data });
    this.timer ??= setTimeout(() => this.startBatch(), SPILL_DELAY_MS).unref();
  }

  /**
   * The indexed pages that continue a prompt after its first `numFound` pages (whose last chain
   * hash is `parentHash`), up to `maxPages` in all. Hashes the prompt's pages, so it is asked
   * only after the RAM lookup; the token ids of each row must equal the prompt's.
   */
  continuation(
    identity: PageIdentity,
    tokenIds: readonly number[],
    numFound: number,
    parentHash: string,
    maxPages: number,
    pageSize: number,
  ): DiskPageRow[] {
    const found: DiskPageRow[] = [];
    if (this.byKey.size === 0 || this.state === 'off') return found;
    const idKey = diskIdentityKey(identity);
    let parent = parentHash;
    for (let pageIndex = numFound; pageIndex < maxPages; pageIndex++) {
      const from = pageIndex * pageSize;
      if (from + pageSize > tokenIds.length) break;
      const hash = chainHash(parent, tokenIds.slice(from, from + pageSize));
      const row = this.byKey.get(diskKeyOf(idKey, pageIndex, hash));
      if (!row || row.parentHash !== parent || !sameTokens(row.tokenIds, tokenIds, from)) break;
      found.push(row);
      parent = hash;
    }
    return found;
  }

  /**
   * Reads `rows` (a continuation, in order) into fresh shared buffers, checking each file's
   * length and checksum; stops at the first file refused (missing, short, altered), which is
   * deleted with its row and told to the log. The pages read are marked used. A request's read
   * (`isServing`) comes first: a prefetch waits for it between its batches (whenNoServingRead).
   */
  async read(rows: readonly DiskPageRow[], isServing = true): Promise<DiskRead> {
    if (!isServing) return this.readRows(rows);
    this.numServingReads += 1;
    try {
      return await this.readRows(rows);
    } finally {
      this.numServingReads -= 1;
      if (this.numServingReads === 0) for (const resolve of this.servingReadsDone.splice(0)) resolve();
    }
  }

  /** Resolves once no request is reading from disk (at once when none is). */
  whenNoServingRead(): Promise<void> {
    if (this.numServingReads === 0) return Promise.resolve();
    return new Promise((resolve) => this.servingReadsDone.push(resolve));
  }

  /**
   * The indexed pages of one identity as whole chains, each in chain order (a page after its
   * parent), the chain of the most recently used page first: what a prefetch reads back. A page
   * whose ancestors are not all on disk could never be found, so it is left out.
   */
  recentChains(identity: Omit<PageIdentity, 'slotRevision'>): DiskPageRow[][] {
    const idKey = diskIdentityKey(identity);
    const planned = new Set<DiskPageRow>();
    const chains: DiskPageRow[][] = [];
    for (const leaf of [...this.byKey.values()].reverse()) {
      if (planned.has(leaf) || diskIdentityKey(leaf) !== idKey) continue;
      const { rows: chain, isWhole } = this.walkBack(idKey, leaf, (row) => planned.has(row));
      if (!isWhole) continue; // an ancestor is gone: the chain breaks before this page
      chain.reverse();
      for (const link of chain) planned.add(link);
      chains.push(chain);
    }
    return chains;
  }

  /**
   * Marks the indexed pages of a chain (its page hashes from the first page) as just used: a
   * slot's worker held it as the runtime closed, so the next start seats it (lastChains).
   */
  touchChain(identity: Omit<PageIdentity, 'slotRevision'>, pageHashes: readonly string[]): void {
    const idKey = diskIdentityKey(identity);
    const rows = pageHashes.map((hash, i) => this.byKey.get(diskKeyOf(idKey, i, hash)));
    this.markUsed(rows.filter((row): row is DiskPageRow => row !== undefined));
  }

  /**
   * The chains of the `maxChains` most recently used pages of one identity, each whole from its
   * first page (two may share their first pages), the most recent first: the conversations a
   * slot's worker held last (see prefetchPagesOnLoad).
   */
  lastChains(identity: Omit<PageIdentity, 'slotRevision'>, maxChains: number): DiskPageRow[][] {
    const idKey = diskIdentityKey(identity);
    const chosen = new Set<DiskPageRow>();
    const chains: DiskPageRow[][] = [];
    for (const leaf of [...this.byKey.values()].reverse()) {
      if (chains.length >= maxChains) break;
      if (chosen.has(leaf) || diskIdentityKey(leaf) !== idKey) continue;
      const { rows: chain, isWhole } = this.walkBack(idKey, leaf);
      if (!isWhole) continue; // an ancestor is gone: the chain could never be found
      chain.reverse();
      for (const link of chain) chosen.add(link);
      chains.push(chain);
    }
    return chains;
  }

  private async readRows(rows: readonly DiskPageRow[]): Promise<DiskRead> {
    const pages: RestoredPage[] = [];
    let numBytes = 0;
    let refused: string | null = null;
    // A few files at a time (a disk serves parallel reads faster), used in chain order.
    for (let from = 0; from < rows.length && refused === null; from += PARALLEL_READS) {
      const window = rows.slice(from, from + PARALLEL_READS);
      const results = await Promise.all(window.map((row) => this.readOne(row)));
      for (const [i, result] of results.entries()) {
        if (typeof result === 'string') {
          refused = result;
          await this.refuse(window[i]!, result);
          break;
        }
        pages.push({ row: window[i]!, data: result });
        numBytes += window[i]!.numBytes;
      }
    }
    this.markUsed(pages.map((p) => p.row));
    this.counters.numRead += pages.length;
    return { pages, numBytes, refused };
  }

  /** Removes the files and rows of every page `isForgotten` picks; resolves with how many. */
  async forget(isForgotten: (row: DiskPageRow) => boolean): Promise<number> {
    await this.settle();
    const rows = [...this.byKey.values()].filter(isForgotten);
    await this.drop(rows);
    return rows.length;
  }

  /**
   * Records that a request of `conversationId` held the chain ending at this page (told once
   * per page; a failed write is told to the log and only means the page may outlive a delete).
   */
  noteConversation(
    conversationId: string,
    identity: PageIdentity,
    pageIndex: number,
    chainHash: string,
  ): void {
    try {
      this.options.rows.noteConversation({
        conversationId,
        identityKey: diskIdentityKey(identity),
        pageIndex,
        chainHash,
      });
    } catch (error) {
      this.options.log.warn(
        'pages',
        `which conversation used remembered context not saved: ${reasonOf(error)}`,
      );
    }
  }

  /**
   * A conversation was deleted: removes the files and rows of the pages its requests reached
   * that no remaining conversation reaches (pages no conversation recorded stay, LRU as ever),
   * and its records. Resolves with how many pages were removed.
   */
  async forgetConversation(conversationId: string): Promise<number> {
    await this.settle();
    const mine = new Set<DiskPageRow>();
    const kept = new Set<DiskPageRow>();
    for (const leaf of this.options.rows.conversationLeaves())
      for (const row of this.chainTo(leaf)) (leaf.conversationId === conversationId ? mine : kept).add(row);
    const rows = [...mine].filter((row) => !kept.has(row));
    this.options.rows.removeConversation(conversationId);
    await this.drop(rows);
    return rows.length;
  }

  /** The indexed pages of the chain ending at `leaf`, as far back as the disk has them. */
  private chainTo(leaf: ConversationLeaf): DiskPageRow[] {
    const row = this.byKey.get(diskKeyOf(leaf.identityKey, leaf.pageIndex, leaf.chainHash));
    return this.walkBack(leaf.identityKey, row).rows;
  }

  /**
   * The indexed pages from `leaf` back towards page 0 (leaf first), stopping before a page
   * `isTaken` says another chain already holds; `isWhole` is false when an ancestor is missing.
   */
  private walkBack(
    idKey: string,
    leaf: DiskPageRow | undefined,
    isTaken: (row: DiskPageRow) => boolean = () => false,
  ): { rows: DiskPageRow[]; isWhole: boolean } {
    const rows: DiskPageRow[] = [];
    let row = leaf;
    while (row && !isTaken(row)) {
      rows.push(row);
      if (row.pageIndex === 0) return { rows, isWhole: true };
      row = this.byKey.get(diskKeyOf(idKey, row.pageIndex - 1, row.parentHash));
    }
    return { rows, isWhole: row !== undefined };
  }

  /** Writes what is queued now and waits until every write in flight is indexed. */
  async settle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.startBatch();
    }
    await this.writing;
  }

  /**
   * Why the disk has no page `numFound` of the prompt (after `parentHash`) for `identity`:
   * the same tokens under other revisions (the fields that differ), removed for the budget,
   * the tier off, or never written.
   */
  explainMiss(
    identity: PageIdentity,
    tokenIds: readonly number[],
    numFound: number,
    parentHash: string,
    pageSize: number,
  ): { changedRevisions: ('model' | 'tokenizer' | 'layout')[] } | { onDisk: 'none' | 'evicted' | 'off' } {
    if (this.state !== 'on') return { onDisk: 'off' };
    const from = numFound * pageSize;
    if (from + pageSize > tokenIds.length) return { onDisk: 'none' };
    const hash = chainHash(parentHash, tokenIds.slice(from, from + pageSize));
    const other = this.byChain.get(`${numFound}/${hash}`)?.values().next().value;
    if (other) {
      const changed = (['model', 'tokenizer', 'layout'] as const).filter(
        (name) => other[`${name}Revision`] !== identity[`${name}Revision`],
      );
      if (changed.length > 0) return { changedRevisions: changed };
    }
    const isGone = this.gone.has(diskKeyOf(diskIdentityKey(identity), numFound, hash));
    return { onDisk: isGone ? 'evicted' : 'none' };
  }

  private index(row: DiskPageRow): void {
    const key = rowKey(row);
    this.byKey.set(key, row);
    this.numBytes += row.numBytes;
    this.gone.delete(key);
    const chain = `${row.pageIndex}/${row.chainHash}`;
    let rows = this.byChain.get(chain);
    if (!rows) this.byChain.set(chain, (rows = new Set()));
    rows.add(row);
  }

  private unindex(row: DiskPageRow): void {
    this.byKey.delete(rowKey(row));
    this.numBytes -= row.numBytes;
    const chain = `${row.pageIndex}/${row.chainHash}`;
    const rows = this.byChain.get(chain);
    rows?.delete(row);
    if (rows?.size === 0) this.byChain.delete(chain);
  }

  private startBatch(): void {
    this.timer = null;
    const batch = this.queue.splice(0);
    this.writing = this.writing.then(() => this.writeBatch(batch));
  }

  private async writeBatch(batch: { row: DiskPageRow; data: PageData }[]): Promise<void> {
    const written: DiskPageRow[] = [];
    for (const { row, data } of batch) {
      if (this.state === 'on' && (await this.writeOne(row, data))) written.push(row);
      this.pending.delete(rowKey(row));
    }
    if (written.length === 0) return;
    try {
      this.options.rows.insert(written);
    } catch (error) {
      this.options.log.warn('pages', `remembered context not indexed: ${reasonOf(error)}`);
      await Promise.all(written.map((row) => unlink(this.fileOf(row)).catch(() => undefined)));
      return;
    }
    for (const row of written) this.index(row);
    this.counters.numWritten += written.length;
    await this.evictOverBudget();
  }

  /** Writes one page file: temp name, fsync, rename. False (and told) when the disk refused. */
  private async writeOne(row: DiskPageRow, data: PageData): Promise<boolean> {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    row.checksum = createHash('sha256').update(bytes).digest('base64url');
    const file = this.fileOf(row);
    const temp = `${file}.${process.pid}${TEMP_SUFFIX}`;
    try {
      const handle = await (this.options.openFile ?? open)(temp, 'w', PRIVATE_FILE_MODE);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
      return true;
    } catch (error) {
      await unlink(temp).catch(() => undefined); // never written, or already gone: nothing to keep
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') {
        this.isFull = true;
        this.options.log.warn(
          'pages',
          'the disk is full: remembered context is no longer written to disk (serving goes on)',
        );
      } else this.options.log.warn('pages', `a context page was not written to disk: ${reasonOf(error)}`);
      return false;
    }
  }

  /** The file's bytes in a fresh shared buffer, or why they may not be used. */
  private async readOne(row: DiskPageRow): Promise<PageData | string> {
    const buffer = new SharedArrayBuffer(row.numBytes);
    const bytes = new Uint8Array(buffer);
    let handle;
    try {
      handle = await open(this.fileOf(row), 'r');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its file is missing' : reasonOf(error);
    }
    try {
      const { size } = await handle.stat();
      if (size !== row.numBytes) return `its file has ${size} bytes, not ${row.numBytes}`;
      let offset = 0;
      while (offset < size) {
        const { bytesRead } = await handle.read(bytes, offset, size - offset, offset);
        if (bytesRead === 0) return 'its file ended early';
        offset += bytesRead;
      }
    } finally {
      await handle.close();
    }
    const checksum = createHash('sha256').update(bytes).digest('base64url');
    if (checksum !== row.checksum) return 'its bytes do not match their checksum (altered or swapped)';
    return { buffer, byteOffset: 0, byteLength: row.numBytes };
  }

  private async refuse(row: DiskPageRow, reason: string): Promise<void> {
    this.counters.numRefused += 1;
    this.options.log.warn(
      'pages',
      `a remembered context page (${row.fileName}) was not used and is deleted: ${reason}`,
    );
    await this.drop([row]);
  }

  private markUsed(rows: readonly DiskPageRow[]): void {
    if (rows.length === 0) return;
    const atWallMs = this.options.wallNow();
    for (const row of rows) {
      const key = rowKey(row);
      this.byKey.delete(key);
      row.lastUsedWallMs = atWallMs;
      this.byKey.set(key, row);
    }
    try {
      this.options.rows.touch(
        rows.map((row) => row.fileName),
        atWallMs,
      );
    } catch (error) {
      this.options.log.warn('pages', `last use of remembered context not saved: ${reasonOf(error)}`);
    }
  }

  private async evictOverBudget(): Promise<void> {
    const budget = this.budgetBytes;
    const victims: DiskPageRow[] = [];
    let bytes = this.numBytes;
    for (const row of this.byKey.values()) {
      if (bytes <= budget) break;
      victims.push(row);
      bytes -= row.numBytes;
    }
    this.counters.numEvicted += victims.length;
    for (const row of victims) {
      this.gone.add(rowKey(row));
      if (this.gone.size > MAX_GONE) this.gone.delete(this.gone.values().next().value!);
    }
    await this.drop(victims);
  }

  /** Forgets rows (index first: a row without its file is never trusted anyway) then files. */
  private async drop(rows: readonly DiskPageRow[]): Promise<void> {
    const gone = rows.filter((row) => this.byKey.get(rowKey(row)) === row);
    if (gone.length === 0) return;
    for (const row of gone) this.unindex(row);
    try {
      this.options.rows.remove(gone.map((row) => row.fileName));
    } catch (error) {
      this.options.log.warn('pages', `remembered context rows not removed: ${reasonOf(error)}`);
    }
    await Promise.all(gone.map((row) => unlink(this.fileOf(row)).catch(() => undefined)));
    this.isFull = false;
  }

  /**
   * At start: deletes temp files (a write a kill cut short) and page files no row names (a
   * kill between rename and index); they are never read.
   */
  private sweep(indexed: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = readdirSync(this.options.dir);
    } catch (error) {
      this.options.log.warn('pages', `cannot list remembered context: ${reasonOf(error)}`);
      return;
    }
    for (const name of names) {
      const isStray = name.endsWith(TEMP_SUFFIX) || (name.endsWith(PAGE_SUFFIX) && !indexed.has(name));
      if (!isStray) continue;
      try {
        unlinkSync(path.join(this.options.dir, name));
      } catch (error) {
        this.options.log.warn('pages', `cannot delete ${name}: ${reasonOf(error)}`);
      }
    }
  }

  private fileOf(row: DiskPageRow): string {
    return path.join(this.options.dir, row.fileName);
  }
}

/** The automatic disk budget: 5% of the free space in `dir`, at most 2 GiB (0 when unknown). */
export function autoBudgetBytes(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return Math.min(AUTO_MAX_BYTES, Math.floor(stats.bavail * stats.bsize * AUTO_SHARE_OF_FREE));
  } catch {
    return 0; // no free-space figure (an odd file system): the tier stays off unless set by hand
  }
}
