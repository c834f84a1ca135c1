import { describe, expect, it } from 'vitest';
import { CHAIN_ROOT, chainHash, pageKey } from '../../../../src-main/runtime/pages/page-key';
import { RamPages } from '../../../../src-main/runtime/pages/ram-pages';
import { IDENTITY, TOKENS, dataOf, fill } from '../../../support/pages';

describe('RamPages', () => {
  it('returns the longest run of leading pages and stops at the first difference', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    expect(ramPages.lookup(IDENTITY, TOKENS, 10)).toHaveLength(5);
    const changed = [...TOKENS];
    changed[20] = 7;
    expect(ramPages.lookup(IDENTITY, changed, 10)).toHaveLength(2);
    expect(ramPages.lookup(IDENTITY, TOKENS, 3)).toHaveLength(3);
  });

  it("finds the very pages a walk that rehashes every page's chain would find", () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const found = ramPages.lookup(IDENTITY, TOKENS, 10);
    let parent = CHAIN_ROOT;
    const rehashed = found.map((_, i) => {
      parent = chainHash(parent, TOKENS.slice(i * 8, (i + 1) * 8));
      return pageKey(IDENTITY, i, parent);
    });
    expect(found.map((page) => page.key)).toEqual(rehashed);
    expect(ramPages.peek(IDENTITY, TOKENS, 10)).toEqual({ numRamPages: 5, numDiskPages: 0, numDiskBytes: 0 });
  });

  it('finds a whole chain again once its evicted first page is stored anew', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    expect(ramPages.evict(64)).toBe(64);
    expect(ramPages.lookup(IDENTITY, TOKENS, 10)).toHaveLength(0);
    fill(ramPages, IDENTITY, TOKENS.slice(0, 8));
    expect(ramPages.lookup(IDENTITY, TOKENS, 10)).toHaveLength(5);
  });

  it('tells token ids apart that share their low 16 bits (no page for another prompt)', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const aliased = TOKENS.map((id, i) => (i === 3 ? id + 0x10000 : id));
    expect(ramPages.lookup(IDENTITY, aliased, 10)).toHaveLength(0);
  });

  it('forgets an evicted or dropped page: it is never found again', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    ramPages.evict(64 * 5);
    expect(ramPages.numPages).toBe(0);
    expect(ramPages.lookup(IDENTITY, TOKENS, 10)).toHaveLength(0);
    fill(ramPages, IDENTITY, TOKENS);
    expect(ramPages.dropIdentity(IDENTITY)).toBe(5);
    expect(ramPages.peek(IDENTITY, TOKENS, 10).numRamPages).toBe(0);
  });

  it.each([
    ['modelRevision', { ...IDENTITY, modelRevision: 'm2' }],
    ['tokenizerRevision', { ...IDENTITY, tokenizerRevision: 't2' }],
    ['layoutRevision (dtype or page size changed)', { ...IDENTITY, layoutRevision: 'l2' }],
    ['slotRevision', { ...IDENTITY, slotRevision: 2 }],
  ])('misses when %s differs (fail closed)', (_field, identity) => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    expect(ramPages.lookup(identity, TOKENS, 10)).toHaveLength(0);
  });

  it("keys pages of another size apart: no 16-token page of the same tokens has an 8-token page's key", () => {
    const small = new RamPages(8);
    fill(small, IDENTITY, TOKENS);
    const large = new RamPages(16);
    fill(large, IDENTITY, TOKENS);
    const smallKeys = new Set(small.lookup(IDENTITY, TOKENS, 10).map((page) => page.key));
    const largePages = large.lookup(IDENTITY, TOKENS, 10);
    expect(smallKeys.size).toBe(5);
    expect(largePages).toHaveLength(2);
    expect(largePages.filter((page) => smallKeys.has(page.key))).toEqual([]);
  });

  it('never counts a hash alone as a hit: stored tokens must match too', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const [page] = ramPages.lookup(IDENTITY, TOKENS, 1);
    page!.tokenIds[3] = -1;
    expect(ramPages.lookup(IDENTITY, TOKENS, 10)).toHaveLength(0);
  });

  it('evicts least recently used unheld pages and never a held one', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const held = ramPages.lookup(IDENTITY, TOKENS, 2);
    held.forEach((page) => ramPages.hold(page));
    const freed = ramPages.evict(64 * 10);
    expect(freed).toBe(64 * 3);
    expect(ramPages.numPages).toBe(2);
    expect(ramPages.numHeldPages).toBe(2);
    held.forEach((page) => ramPages.release(page));
    expect(ramPages.numHeldPages).toBe(0);
  });

  it("drops an unloaded session's unheld pages and nobody else's", () => {
    const ramPages = new RamPages(8);
    const other = { ...IDENTITY, slotRevision: 2 };
    fill(ramPages, IDENTITY, TOKENS);
    fill(ramPages, other, TOKENS);
    const [held] = ramPages.lookup(IDENTITY, TOKENS, 1);
    ramPages.hold(held!);
    expect(ramPages.dropIdentity(IDENTITY)).toBe(4);
    expect(ramPages.numPages).toBe(6);
    expect(ramPages.bytes).toBe(6 * 64);
    expect(ramPages.lookup(other, TOKENS, 10)).toHaveLength(5);
    expect(ramPages.lookup(IDENTITY, TOKENS, 10)).toEqual([held]);
  });

  it('refuses to release a page more often than it was held', () => {
    const ramPages = new RamPages(8);
    const page = ramPages.insertHeld(IDENTITY, 0, CHAIN_ROOT, TOKENS.slice(0, 8), dataOf(8));
    ramPages.release(page);
    expect(() => ramPages.release(page)).toThrow(/released more often than held/);
  });
});
