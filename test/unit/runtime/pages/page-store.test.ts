import { describe, expect, it } from 'vitest';
import { CHAIN_ROOT, chainHash, pageKey } from '../../../../src-main/runtime/pages/page-key';
import { PageStore } from '../../../../src-main/runtime/pages/page-store';
import { IDENTITY, TOKENS, dataOf, fill } from '../../../support/pages';

describe('PageStore', () => {
  it('returns the longest run of leading pages and stops at the first difference', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    expect(store.lookup(IDENTITY, TOKENS, 10)).toHaveLength(5);
    const changed = [...TOKENS];
    changed[20] = 7;
    expect(store.lookup(IDENTITY, changed, 10)).toHaveLength(2);
    expect(store.lookup(IDENTITY, TOKENS, 3)).toHaveLength(3);
  });

  it("finds the very pages a walk that rehashes every page's chain would find", () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const found = store.lookup(IDENTITY, TOKENS, 10);
    let parent = CHAIN_ROOT;
    const rehashed = found.map((_, i) => {
      parent = chainHash(parent, TOKENS.slice(i * 8, (i + 1) * 8));
      return pageKey(IDENTITY, i, parent);
    });
    expect(found.map((page) => page.key)).toEqual(rehashed);
    expect(store.peek(IDENTITY, TOKENS, 10)).toEqual({ numRamPages: 5, numDiskPages: 0, numDiskBytes: 0 });
  });

  it('finds a whole chain again once its evicted first page is stored anew', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    expect(store.evict(64)).toBe(64);
    expect(store.lookup(IDENTITY, TOKENS, 10)).toHaveLength(0);
    fill(store, IDENTITY, TOKENS.slice(0, 8));
    expect(store.lookup(IDENTITY, TOKENS, 10)).toHaveLength(5);
  });

  it('tells token ids apart that share their low 16 bits (no page for another prompt)', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const aliased = TOKENS.map((id, i) => (i === 3 ? id + 0x10000 : id));
    expect(store.lookup(IDENTITY, aliased, 10)).toHaveLength(0);
  });

  it('forgets an evicted or dropped page: it is never found again', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    store.evict(64 * 5);
    expect(store.numPages).toBe(0);
    expect(store.lookup(IDENTITY, TOKENS, 10)).toHaveLength(0);
    fill(store, IDENTITY, TOKENS);
    expect(store.dropIdentity(IDENTITY)).toBe(5);
    expect(store.peek(IDENTITY, TOKENS, 10).numRamPages).toBe(0);
  });

  it.each([
    ['modelRevision', { ...IDENTITY, modelRevision: 'm2' }],
    ['tokenizerRevision', { ...IDENTITY, tokenizerRevision: 't2' }],
    ['layoutRevision (dtype or page size changed)', { ...IDENTITY, layoutRevision: 'l2' }],
    ['slotRevision', { ...IDENTITY, slotRevision: 2 }],
  ])('misses when %s differs (fail closed)', (_field, identity) => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    expect(store.lookup(identity, TOKENS, 10)).toHaveLength(0);
  });

  it("keys pages of another size apart: no 16-token page of the same tokens has an 8-token page's key", () => {
    const small = new PageStore(8);
    fill(small, IDENTITY, TOKENS);
    const large = new PageStore(16);
    fill(large, IDENTITY, TOKENS);
    const smallKeys = new Set(small.lookup(IDENTITY, TOKENS, 10).map((page) => page.key));
    const largePages = large.lookup(IDENTITY, TOKENS, 10);
    expect(smallKeys.size).toBe(5);
    expect(largePages).toHaveLength(2);
    expect(largePages.filter((page) => smallKeys.has(page.key))).toEqual([]);
  });

  it('never counts a hash alone as a hit: stored tokens must match too', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const [page] = store.lookup(IDENTITY, TOKENS, 1);
    page!.tokenIds[3] = -1;
    expect(store.lookup(IDENTITY, TOKENS, 10)).toHaveLength(0);
  });

  it('evicts least recently used unheld pages and never a held one', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const held = store.lookup(IDENTITY, TOKENS, 2);
    held.forEach((page) => store.hold(page));
    const freed = store.evict(64 * 10);
    expect(freed).toBe(64 * 3);
    expect(store.numPages).toBe(2);
    expect(store.numHeldPages).toBe(2);
    held.forEach((page) => store.release(page));
    expect(store.numHeldPages).toBe(0);
  });

  it("drops an unloaded session's unheld pages and nobody else's", () => {
    const store = new PageStore(8);
    const other = { ...IDENTITY, slotRevision: 2 };
    fill(store, IDENTITY, TOKENS);
    fill(store, other, TOKENS);
    const [held] = store.lookup(IDENTITY, TOKENS, 1);
    store.hold(held!);
    expect(store.dropIdentity(IDENTITY)).toBe(4);
    expect(store.numPages).toBe(6);
    expect(store.bytes).toBe(6 * 64);
    expect(store.lookup(other, TOKENS, 10)).toHaveLength(5);
    expect(store.lookup(IDENTITY, TOKENS, 10)).toEqual([held]);
  });

  it('refuses to release a page more often than it was held', () => {
    const store = new PageStore(8);
    const page = store.insertHeld(IDENTITY, 0, CHAIN_ROOT, TOKENS.slice(0, 8), dataOf(8));
    store.release(page);
    expect(() => store.release(page)).toThrow(/released more often than held/);
  });
});
