import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskPages } from '../../../../src-main/runtime/pages/disk-pages';
import { CHAIN_ROOT } from '../../../../src-main/runtime/pages/page-key';
import { RamPages } from '../../../../src-main/runtime/pages/ram-pages';
import type { DiskPageRow, DiskPageRows } from '../../../../src-main/runtime/pages/disk-page-rows';
import type { PageIdentity } from '../../../../src-main/runtime/pages/page-key';
import { open } from 'node:fs/promises';
import { prefetchPages } from '../../../../src-main/runtime/pages/page-prefetch';
import { openSqliteHistory } from '../../../../src-main/history/history';
import type { History } from '../../../../src-main/history/history';
import { IDENTITY, TOKENS } from '../../../support/pages';

const PAGE_BYTES = 256;

/** A page's K/V bytes: distinct per page so a swapped file cannot pass as another's. */
function bytesOf(pageIndex: number) {
  const buffer = new SharedArrayBuffer(PAGE_BYTES);
  new Uint8Array(buffer).forEach((_, i, all) => (all[i] = (pageIndex * 31 + i) & 0xff));
  return { buffer, byteOffset: 0, byteLength: PAGE_BYTES };
}

describe('DiskPages', () => {
  let dataDir: string;
  let history: History;
  let warnings: string[];
  let budgetBytes: number | null;
  let wallMs: number;

  const pagesDir = () => path.join(dataDir, 'context-pages');
  const openTier = (rows: DiskPageRows = history.contextPages!) =>
    new DiskPages({
      dir: pagesDir(),
      rows,
      log: { warn: (_topic, message) => void warnings.push(message) },
      budgetBytes: () => budgetBytes,
      wallNow: () => wallMs,
    });
  /** Stores the five pages of TOKENS (page size 8) through a RAM tier over `disk`, then writes them. */
  async function spillAll(
    disk: DiskPages,
    identity: PageIdentity = IDENTITY,
    tokens: number[] = TOKENS,
  ): Promise<string> {
    const pages = new RamPages(8, disk);
    let parent = CHAIN_ROOT;
    for (let p = 0; p < 5; p++) {
      wallMs += 1;
      const page = pages.insertHeld(identity, p, parent, tokens.slice(p * 8, (p + 1) * 8), bytesOf(p));
      parent = page.hash;
    }
    pages.markFilled(identity); // the slot's worker replied again: the pages hold their bytes
    await disk.settle();
    return parent;
  }
  /** A restarted process: a fresh store connection and tier over the same folder. */
  function restart(): DiskPages {
    history.close();
    history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
    return openTier();
  }
  const restoredFrom = (disk: DiskPages, identity: PageIdentity = IDENTITY) =>
    new RamPages(8, disk).restoreFromDisk(identity, TOKENS, 5);

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-disk-pages-'));
    history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
    warnings = [];
    budgetBytes = null;
    wallMs = 1_000;
  });
  afterEach(() => {
    history.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads back after a restart the very bytes it wrote, from owner-only files', async () => {
    await spillAll(openTier());
    const disk = restart();
    expect(disk.numPages).toBe(5);
    const read = await restoredFrom(disk);
    expect(read!.refused).toBeNull();
    expect(read!.pages.map((p) => [...new Uint8Array(p.data.buffer)])).toEqual(
      [0, 1, 2, 3, 4].map((p) => [...new Uint8Array(bytesOf(p).buffer)]),
    );
    expect(read!.numBytes).toBe(5 * PAGE_BYTES);
    if (process.platform !== 'win32') {
      expect(statSync(pagesDir()).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(pagesDir()))
        expect(statSync(path.join(pagesDir(), name)).mode & 0o777).toBe(0o600);
    }
  });

  it('puts restored pages in RAM so the lookup finds the whole prefix', async () => {
    await spillAll(openTier());
    const pages = new RamPages(8, restart());
    expect(pages.lookup(IDENTITY, TOKENS, 5)).toHaveLength(0);
    // The forecast counts disk pages as reuse, with the bytes their read will cost.
    expect(pages.peek(IDENTITY, TOKENS, 5)).toEqual({
      numRamPages: 0,
      numDiskPages: 5,
      numDiskBytes: 5 * PAGE_BYTES,
    });
    await pages.restoreFromDisk(IDENTITY, TOKENS, 5);
    expect(pages.lookup(IDENTITY, TOKENS, 5)).toHaveLength(5);
    expect(pages.restoreFromDisk(IDENTITY, TOKENS, 5)).toBeNull();
  });

  it('never finds pages of another model, tokenizer or layout revision', async () => {
    await spillAll(openTier());
    const disk = restart();
    for (const field of ['modelRevision', 'tokenizerRevision', 'layoutRevision'] as const)
      expect(restoredFrom(disk, { ...IDENTITY, [field]: 'changed' })).toBeNull();
    // The slot revision is not part of a page's identity on disk: a new session reads it.
    expect(restoredFrom(disk, { ...IDENTITY, slotRevision: 9 })).not.toBeNull();
  });

  const damages: [string, (file: string, others: string[]) => void, RegExp][] = [
    ['truncated', (file) => truncateSync(file, PAGE_BYTES - 1), /bytes, not 256/],
    [
      'flipped-byte',
      (file) => {
        const bytes = readFileSync(file);
        bytes[17] = bytes[17]! ^ 0x01;
        writeFileSync(file, bytes);
      },
      /checksum/,
    ],
    ['swapped', (file, others) => writeFileSync(file, readFileSync(others[0]!)), /checksum/],
    ['missing', (file) => rmSync(file), /missing/],
  ];
  it.each(damages)(
    'refuses a %s page file with the reason, deletes it and its row',
    async (_, damage, reason) => {
      await spillAll(openTier());
      const rows = history.contextPages!.all().sort((a, b) => a.pageIndex - b.pageIndex);
      const third = path.join(pagesDir(), rows[2]!.fileName);
      damage(
        third,
        rows.filter((r) => r.pageIndex !== 2).map((r) => path.join(pagesDir(), r.fileName)),
      );
      const disk = restart();
      const read = await restoredFrom(disk);
      expect(read!.pages).toHaveLength(2);
      expect(read!.refused).toMatch(reason);
      expect(warnings.join('\n')).toMatch(reason);
      await disk.settle();
      await new Promise((resolve) => setImmediate(resolve));
      expect(history.contextPages!.all().map((r) => r.pageIndex)).not.toContain(2);
      expect(readdirSync(pagesDir())).not.toContain(rows[2]!.fileName);
      expect(disk.numPages).toBe(4);
    },
  );

  it('evicts least recently used pages first when over budget', async () => {
    budgetBytes = 5 * PAGE_BYTES;
    const disk = openTier();
    await spillAll(disk);
    // Use pages 0 and 1 again: pages 2, 3, 4 are now the least recently used.
    wallMs += 10;
    await disk.read(disk.continuation(IDENTITY, TOKENS, 0, CHAIN_ROOT, 2, 8));
    budgetBytes = 3 * PAGE_BYTES;
    await spillAll(disk, { ...IDENTITY, modelRevision: 'm2' });
    const kept = history.contextPages!.all().map((r) => `${r.modelRevision}:${r.pageIndex}`);
    expect(kept).toEqual(['m2:2', 'm2:3', 'm2:4']);
    budgetBytes = 5 * PAGE_BYTES;
    await spillAll(disk);
    expect(history.contextPages!.all().map((r) => `${r.modelRevision}:${r.pageIndex}`)).toEqual([
      'm1:0',
      'm1:1',
      'm1:2',
      'm1:3',
      'm1:4',
    ]);
    expect(readdirSync(pagesDir())).toHaveLength(5);
  });

  it('writes nothing with a budget of 0', async () => {
    budgetBytes = 0;
    const disk = openTier();
    await spillAll(disk);
    expect(disk.state).toBe('off');
    expect(readdirSync(pagesDir())).toHaveLength(0);
  });

  it('never uses a half-written temp file or an unindexed page file, and deletes both at start', async () => {
    await spillAll(openTier());
    const [row] = history.contextPages!.all();
    const temp = path.join(pagesDir(), `${row!.fileName}.4242.tmp`);
    writeFileSync(temp, Buffer.alloc(PAGE_BYTES / 2));
    const orphan = path.join(pagesDir(), 'not-indexed.kv');
    writeFileSync(orphan, Buffer.alloc(PAGE_BYTES));
    const disk = restart();
    expect(readdirSync(pagesDir()).sort()).toEqual(
      history
        .contextPages!.all()
        .map((r) => r.fileName)
        .sort(),
    );
    expect((await restoredFrom(disk))!.pages).toHaveLength(5);
  });

  it('forgets one model or all: files and rows both go', async () => {
    const disk = openTier();
    await spillAll(disk);
    await spillAll(disk, { ...IDENTITY, modelRevision: 'm2' });
    expect(await disk.forget((row) => row.modelRevision === 'm2')).toBe(5);
    expect(history.contextPages!.all().every((r) => r.modelRevision === 'm1')).toBe(true);
    expect(readdirSync(pagesDir())).toHaveLength(5);
    expect(await disk.forget(() => true)).toBe(5);
    expect(history.contextPages!.all()).toHaveLength(0);
    expect(readdirSync(pagesDir())).toHaveLength(0);
    expect(restoredFrom(restart())).toBeNull();
  });

  it('explains a miss after a restart: another revision on disk, removed for the budget, or never kept', async () => {
    budgetBytes = 5 * PAGE_BYTES;
    const disk = openTier();
    await spillAll(disk);
    const pages = new RamPages(8, disk);
    expect(pages.explainMiss({ ...IDENTITY, modelRevision: 'm2' }, TOKENS, [], 5)).toMatchObject({
      kind: 'revision',
      changedRevisions: ['model'],
    });
    const other = TOKENS.map((id) => id + 1000);
    expect(pages.explainMiss(IDENTITY, other, [], 5)).toMatchObject({ kind: 'no-prefix', onDisk: 'none' });
    budgetBytes = 0;
    expect(pages.explainMiss(IDENTITY, other, [], 5)).toMatchObject({ onDisk: 'off' });
    budgetBytes = 5 * PAGE_BYTES;
    await spillAll(disk, IDENTITY, other);
    expect(pages.explainMiss(IDENTITY, TOKENS, [], 5)).toMatchObject({
      kind: 'no-prefix',
      onDisk: 'evicted',
    });
  });

  it('writes no page before its worker confirms its bytes, nor one whose worker is gone', async () => {
    const disk = openTier();
    const pages = new RamPages(8, disk);
    pages.insertHeld(IDENTITY, 0, CHAIN_ROOT, TOKENS.slice(0, 8), bytesOf(0));
    await disk.settle();
    expect(disk.numPages).toBe(0);
    pages.markFilled(IDENTITY);
    await disk.settle();
    expect(disk.numPages).toBe(1);
    const other = { ...IDENTITY, slotRevision: 2 };
    pages.insertHeld(other, 0, CHAIN_ROOT, TOKENS.slice(8, 16), bytesOf(1));
    pages.dropIdentity(other);
    pages.markFilled(other);
    await disk.settle();
    expect(disk.numPages).toBe(1);
  });

  it('deleting a conversation removes the pages only it reached; a page another conversation shares stays', async () => {
    const disk = openTier();
    const shared = TOKENS.slice(0, 16);
    const other = [...shared, ...TOKENS.slice(16).map((t) => t + 1000)];
    const lastOfMine = await spillAll(disk);
    const lastOfOther = await spillAll(disk, IDENTITY, other);
    expect(disk.numPages).toBe(8); // pages 0 and 1 are the same in both chains
    disk.noteConversation('mine', IDENTITY, 4, lastOfMine);
    disk.noteConversation('other', IDENTITY, 4, lastOfOther);

    expect(await disk.forgetConversation('mine')).toBe(3);
    expect(disk.numPages).toBe(5);
    expect(readdirSync(pagesDir())).toHaveLength(5);
    const restarted = restart(); // the rows say the same after a restart
    expect(restarted.numPages).toBe(5);
    expect(await restarted.forgetConversation('other')).toBe(5);
    expect(history.contextPages!.all()).toHaveLength(0);
    expect(readdirSync(pagesDir())).toHaveLength(0);
    expect(history.contextPages!.conversationLeaves()).toHaveLength(0);
  });

  it('stops writing when the disk is full, says so once, and goes on serving from RAM', async () => {
    const full = ((file: string, flags: string, mode?: number) =>
      flags === 'w'
        ? Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))
        : open(file, flags, mode)) as typeof open;
    const disk = new DiskPages({
      dir: pagesDir(),
      rows: history.contextPages!,
      log: { warn: (_topic, message) => void warnings.push(message) },
      budgetBytes: () => budgetBytes,
      wallNow: () => wallMs,
      openFile: full,
    });
    const pages = new RamPages(8, disk);
    let parent = CHAIN_ROOT;
    for (let p = 0; p < 5; p++) {
      const page = pages.insertHeld(IDENTITY, p, parent, TOKENS.slice(p * 8, (p + 1) * 8), bytesOf(p));
      pages.release(page);
      parent = page.hash;
    }
    pages.markFilled(IDENTITY);
    await disk.settle();
    await spillAll(
      disk,
      IDENTITY,
      TOKENS.map((t) => t + 5000),
    ); // later pages are not even tried
    expect(disk.state).toBe('full');
    expect(warnings.filter((w) => w.includes('disk is full'))).toHaveLength(1);
    expect(disk.numPages).toBe(0);
    expect(readdirSync(pagesDir())).toHaveLength(0);
    expect(pages.lookup(IDENTITY, TOKENS, 5)).toHaveLength(5);
  });

  it('gives the last used chains whole from their first page, a chain a worker held at close first', async () => {
    const heldAtClose = await spillAll(openTier()); // written first, but still held when the runtime closed
    const first = openTier();
    await spillAll(
      first,
      IDENTITY,
      TOKENS.map((t) => t + 1000),
    );
    const tier = restart();
    const byFirstToken = (chains: DiskPageRow[][]) => chains.map((chain) => chain[0]!.tokenIds[0]);
    expect(byFirstToken(tier.lastChains(IDENTITY, 2))).toEqual([1100, 100]);
    const hashes = tier.lastChains(IDENTITY, 2)[1]!.map((row) => row.chainHash);
    expect(hashes.at(-1)).toBe(heldAtClose);
    wallMs += 1;
    tier.touchChain(IDENTITY, hashes);
    const chains = tier.lastChains(IDENTITY, 1);
    expect(byFirstToken(chains)).toEqual([100]);
    expect(chains[0]!.map((row) => row.pageIndex)).toEqual([0, 1, 2, 3, 4]);
    // Kept across a restart: the touch is in the index.
    expect(byFirstToken(restart().lastChains(IDENTITY, 2))).toEqual([100, 1100]);
  });

  it("prefetches a restarted tier's pages into RAM, newest chain first, and stops before the budget would evict", async () => {
    await spillAll(openTier());
    await spillAll(
      openTier(),
      IDENTITY,
      TOKENS.map((t) => t + 1000),
    ); // used last
    const nextSession = { ...IDENTITY, slotRevision: 2 };
    const prefetchBudget = (freeBytes: number) => ({ freeBytes: () => freeBytes, isCurrent: () => true });

    const tight = new RamPages(8, restart());
    const chains = tight.disk!.recentChains(nextSession);
    expect(chains.map((chain) => chain[0]!.tokenIds[0])).toEqual([1100, 100]);
    expect(await prefetchPages(tight, nextSession, prefetchBudget(4 * PAGE_BYTES))).toMatchObject({
      numPages: 0,
      end: 'budget',
    });
    expect(tight.numPages).toBe(0);

    const ample = new RamPages(8, restart());
    expect(await prefetchPages(ample, nextSession, prefetchBudget(Infinity))).toMatchObject({
      numPages: 10,
      end: 'done',
    });
    expect(ample.lookup(nextSession, TOKENS, 5)).toHaveLength(5);
    expect(
      ample.lookup(
        nextSession,
        TOKENS.map((t) => t + 1000),
        5,
      ),
    ).toHaveLength(5);
  });
});
