import type { PageMiss } from '../../telemetry/timeline/diagnosis';
import type { DiskPageRow } from './disk-page-rows';
import type { DiskPages, DiskRead } from './disk-pages';
import { MissIndex } from './miss-index';
import type { PageData } from './page-data';
import { PageIndex, sameTokens } from './page-index';
import { CHAIN_ROOT, LinkKeys, chainHash, identityKey, pageKey } from './page-key';
import type { PageIdentity } from './page-key';

/** The RAM misses the disk tier can say more about: the next page was never in RAM, or left it. */
const DISK_EXPLAINED: ReadonlySet<PageMiss['kind']> = new Set(['no-prefix', 'beyond-cache', 'evicted']);

/** One cached page: the K/V bytes of `pageSize` tokens, shared with the worker that wrote them. */
export interface CachedPage {
  key: string;
  /** The identity part of the key (see identityKey): which slot session's K/V this is. */
  identityKey: string;
  pageIndex: number;
  hash: string;
  /** The previous page's chain hash (CHAIN_ROOT for page 0). */
  parentHash: string;
  /** Its place in its chain, spelled exactly (LinkKeys): what both indexes file it under. */
  linkKey: string;
  identity: PageIdentity;
  tokenIds: Int32Array;
  data: PageData;
  /** Running sequences that hold this page; a held page is never evicted. */
  numHolders: number;
}

/** Counters for the slots view (pages totals and hit rate). */
export interface PageCounters {
  numLookups: number;
  numLookupTokens: number;
  numHitTokens: number;
  numEvicted: number;
}

/** What a prompt would reuse now: leading pages in RAM, then those read back from disk. */
export interface PeekedPages {
  numRamPages: number;
  numDiskPages: number;
  /** The disk pages' file bytes (what reading them back costs). */
  numDiskBytes: number;
}

/**
 * Context pages keyed by identity + position + chain hash, least recently used first. A hit
 * needs the key *and* the stored token ids to match: a hash alone never counts. The store
 * keeps the pages and counts each one's holders (a held page is never evicted); which sequence
 * holds which page is the scheduler's page ledger's, the only caller of `hold`, `insertHeld`
 * and `release`.
 */
export class RamPages {
  /** Every stored page by key, least recently used first. */
  private readonly pages = new Map<string, CachedPage>();
  private numBytes = 0;
  private readonly links: LinkKeys;
  private readonly index: PageIndex;
  private readonly misses: MissIndex;
  /**
   * New pages whose bytes their slot's worker has not confirmed yet, by identity key: the worker
   * fills the pages a reply announces before it takes its next job, so they are spilled to disk
   * only once a later reply of that slot arrives (markFilled). Never read from here.
   */
  private readonly unfilled = new Map<string, CachedPage[]>();
  readonly counters: PageCounters = { numLookups: 0, numLookupTokens: 0, numHitTokens: 0, numEvicted: 0 };

  /** `disk`: the tier under these pages (a new page is spilled once its worker confirms its bytes), or null. */
  constructor(
    readonly pageSize: number,
    readonly disk: DiskPages | null = null,
  ) {
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new Error(`page size must be a positive integer, got ${pageSize}`);
    this.links = new LinkKeys(pageSize);
    this.index = new PageIndex(pageSize, this.links);
    this.misses = new MissIndex(pageSize, this.links);
  }

  /** Bytes of every stored page, held or not. */
  get bytes(): number {
    return this.numBytes;
  }

  get numPages(): number {
    return this.pages.size;
  }

  /** Pages some running sequence holds right now. */
  get numHeldPages(): number {
    let held = 0;
    for (const page of this.pages.values()) if (page.numHolders > 0) held++;
    return held;
  }

  /**
   * The longest run of leading pages of `tokenIds` (at most `maxPages`), marked used. Does not
   * hold them: call `hold` for the pages a sequence will read.
   */
  lookup(identity: PageIdentity, tokenIds: readonly number[], maxPages: number): CachedPage[] {
    const found = this.index.leadingPages(identity, tokenIds, maxPages);
    for (const page of found) this.touch(page);
    return found;
  }

  /**
   * The leading pages a request would reuse now, without marking them used (forecasts): those
   * in RAM, then the disk's pages that continue them (read back at queueing) and their bytes.
   */
  peek(identity: PageIdentity, tokenIds: readonly number[], maxPages: number): PeekedPages {
    const found = this.index.leadingPages(identity, tokenIds, maxPages);
    const parent = found.at(-1)?.hash ?? CHAIN_ROOT;
    const onDisk =
      this.disk?.continuation(identity, tokenIds, found.length, parent, maxPages, this.pageSize) ?? [];
    return {
      numRamPages: found.length,
      numDiskPages: onDisk.length,
      numDiskBytes: onDisk.reduce((sum, row) => sum + row.numBytes, 0),
    };
  }

  /**
   * Why a lookup that found `found` (its leading pages, in order) of at most `maxPages` found no
   * more (the timeline says it in words). Reuses the found pages' hashes instead of rehashing.
   */
  explainMiss(
    identity: PageIdentity,
    tokenIds: readonly number[],
    found: readonly CachedPage[],
    maxPages: number,
  ): PageMiss {
    const parentHash = found.at(-1)?.hash ?? CHAIN_ROOT;
    const miss = this.misses.explain(identity, tokenIds, found.length, parentHash, maxPages);
    if (!this.disk || !DISK_EXPLAINED.has(miss.kind)) return miss;
    // Neither RAM nor disk had the next page (a disk page would have been read back at
    // queueing): the disk tier says whether it was under another revision, removed, or never kept.
    const onDisk = this.disk.explainMiss(identity, tokenIds, found.length, parentHash, this.pageSize);
    return 'onDisk' in onDisk
      ? { ...miss, onDisk: onDisk.onDisk }
      : { ...miss, kind: 'revision', changedRevisions: onDisk.changedRevisions };
  }

  /** Records a lookup's outcome for the hit rate (tokens asked, tokens found). */
  countLookup(numTokens: number, numHitTokens: number): void {
    this.counters.numLookups += 1;
    this.counters.numLookupTokens += numTokens;
    this.counters.numHitTokens += numHitTokens;
  }

  /**
   * Stores a completed page (or finds the identical one already stored) and returns it held
   * by the caller. `parentHash` is the chain hash of the previous page (CHAIN_ROOT for page 0).
   */
  insertHeld(
    identity: PageIdentity,
    pageIndex: number,
    parentHash: string,
    tokenIds: readonly number[],
    data: PageData,
  ): CachedPage {
    const numBefore = this.pages.size;
    const page = this.insert(identity, pageIndex, parentHash, tokenIds, data);
    if (this.disk && this.pages.size > numBefore) {
      const list = this.unfilled.get(page.identityKey) ?? [];
      list.push(page);
      this.unfilled.set(page.identityKey, list);
    }
    this.hold(page);
    return page;
  }

  /**
   * A reply of the slot whose session is `identity` arrived: every page announced before it is
   * filled now, so it is spilled to disk (write-behind; an evicted one too, its bytes are kept).
   */
  markFilled(identity: PageIdentity): void {
    if (!this.disk) return;
    const key = identityKey(identity);
    const list = this.unfilled.get(key);
    if (!list) return;
    this.unfilled.delete(key);
    for (const page of list) this.disk.spill(page);
  }

  /**
   * Starts reading back from disk the pages that continue the prompt's RAM prefix (at most
   * `maxPages` in all) and stores them unheld, so the lookup at admission finds them in RAM;
   * null (nothing started) when the disk has none of them.
   */
  restoreFromDisk(
    identity: PageIdentity,
    tokenIds: readonly number[],
    maxPages: number,
  ): Promise<DiskRead> | null {
    if (!this.disk) return null;
    const found = this.index.leadingPages(identity, tokenIds, maxPages);
    const parent = found.at(-1)?.hash ?? CHAIN_ROOT;
    const rows = this.disk.continuation(identity, tokenIds, found.length, parent, maxPages, this.pageSize);
    if (rows.length === 0) return null;
    return this.disk.read(rows).then((read) => {
      for (const { row, data } of read.pages) this.insertRestored(identity, row, data);
      return read;
    });
  }

  /** A request of `conversationId` held pages up to `last`: the disk tier records it (see DiskPages.forgetConversation). */
  noteConversation(conversationId: string, last: CachedPage): void {
    this.disk?.noteConversation(conversationId, last.identity, last.pageIndex, last.hash);
  }

  /** Whether the page at this place of a chain is in RAM now (a prefetch skips reading it). */
  has(identity: PageIdentity, pageIndex: number, hash: string): boolean {
    return this.pages.has(pageKey(identity, pageIndex, hash));
  }

  /** The pages of a chain on disk (`rows`, from its first page) that are in RAM now, up to the first that is not. */
  leadingInRam(identity: PageIdentity, rows: readonly DiskPageRow[]): CachedPage[] {
    const found: CachedPage[] = [];
    for (const row of rows) {
      const page = this.pages.get(pageKey(identity, row.pageIndex, row.chainHash));
      if (!page || page.pageIndex !== found.length) break;
      found.push(page);
    }
    return found;
  }

  /** Stores pages a prefetch read back from disk (in chain order), unheld. */
  insertPrefetched(identity: PageIdentity, read: DiskRead): void {
    for (const { row, data } of read.pages) this.insertRestored(identity, row, data);
  }

  private insertRestored(identity: PageIdentity, row: DiskPageRow, data: PageData): void {
    if (row.pageSize !== this.pageSize) return; // the page size changed while it was read
    this.touch(this.insert(identity, row.pageIndex, row.parentHash, row.tokenIds, data));
  }

  /** Stores a page (or finds the identical one already stored), unheld. */
  private insert(
    identity: PageIdentity,
    pageIndex: number,
    parentHash: string,
    tokenIds: ArrayLike<number>,
    data: PageData,
  ): CachedPage {
    if (tokenIds.length !== this.pageSize)
      throw new Error(`a page holds ${this.pageSize} tokens, got ${tokenIds.length}`);
    const hash = chainHash(parentHash, tokenIds);
    const key = pageKey(identity, pageIndex, hash);
    let page = this.pages.get(key);
    if (!page || !sameTokens(page.tokenIds, tokenIds)) {
      if (page) this.remove(page, false);
      page = {
        key,
        identityKey: identityKey(identity),
        pageIndex,
        hash,
        parentHash,
        linkKey: this.links.of(pageIndex, parentHash, tokenIds, 0),
        identity,
        tokenIds: Int32Array.from(tokenIds),
        data,
        numHolders: 0,
      };
      this.pages.set(key, page);
      this.numBytes += data.byteLength;
      this.index.add(page);
      this.misses.added(page);
    }
    return page;
  }

  /** Marks a page as read by one more running sequence. */
  hold(page: CachedPage): void {
    page.numHolders += 1;
    this.touch(page);
  }

  /** A sequence no longer needs the page; it stays cached until evicted. */
  release(page: CachedPage): void {
    if (page.numHolders <= 0) throw new Error(`page ${page.key} released more often than held`);
    page.numHolders -= 1;
  }

  /** Evicts unheld pages, least recently used first, until `bytesNeeded` are freed or none is left. */
  evict(bytesNeeded: number): number {
    let freed = 0;
    for (const page of [...this.pages.values()]) {
      if (freed >= bytesNeeded) break;
      if (page.numHolders > 0) continue;
      freed += page.data.byteLength;
      this.remove(page, true);
      this.counters.numEvicted += 1;
    }
    return freed;
  }

  /**
   * Drops every unheld page of one identity: an unloaded slot's pages can never be hit again
   * (its next session has a new slot revision), so they would only take budget until evicted.
   * Returns the number of pages dropped.
   */
  dropIdentity(identity: PageIdentity): number {
    // Its worker is gone: pages it never confirmed filled are never written to disk.
    this.unfilled.delete(identityKey(identity));
    let numDropped = 0;
    for (const page of this.index.pagesOf(identity))
      if (page.numHolders === 0) {
        this.remove(page, true);
        numDropped += 1;
      }
    return numDropped;
  }

  /** Forgets every page (the engine using this store is retired; no sequence holds any). */
  dispose(): void {
    this.unfilled.clear();
    for (const page of [...this.pages.values()]) this.remove(page, false);
  }

  private touch(page: CachedPage): void {
    this.pages.delete(page.key);
    this.pages.set(page.key, page);
  }

  private remove(page: CachedPage, isEvicted: boolean): void {
    if (this.pages.get(page.key) === page) {
      this.pages.delete(page.key);
      this.numBytes -= page.data.byteLength;
      this.index.remove(page);
      this.misses.removed(page, isEvicted);
    }
  }
}
