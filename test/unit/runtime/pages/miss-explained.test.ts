import { describe, expect, it } from 'vitest';
import { RamPages } from '../../../../src-main/runtime/pages/ram-pages';
import type { PageIdentity } from '../../../../src-main/runtime/pages/page-key';
import { IDENTITY, TOKENS, fill } from '../../../support/pages';

/** Looks up like the scheduler (one token always left to prefill) and explains the result. */
function explain(ramPages: RamPages, identity: PageIdentity, tokens: number[]) {
  const maxPages = Math.floor((tokens.length - 1) / 8);
  const found = ramPages.lookup(identity, tokens, maxPages);
  return ramPages.explainMiss(identity, tokens, found, maxPages);
}

describe('why a page lookup found no more', () => {
  it('nothing cached starts like the prompt', () => {
    expect(explain(new RamPages(8), IDENTITY, TOKENS)).toMatchObject({
      kind: 'no-prefix',
      numCachedTokens: 0,
    });
  });

  it('every full page hit: only the unaligned tail is left', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const longer = [...TOKENS, 1, 2, 3];
    expect(explain(ramPages, IDENTITY, longer)).toMatchObject({
      kind: 'unaligned-tail',
      numCachedTokens: 40,
      numPromptTokens: 43,
    });
  });

  it('names the first token where the prompt leaves the cached one', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const changed = [...TOKENS];
    changed[21] = 7;
    expect(explain(ramPages, IDENTITY, changed)).toMatchObject({
      kind: 'diverged',
      numCachedTokens: 16,
      divergedAtToken: 21,
    });
  });

  it('names the revision that changed when the same tokens are cached under another', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const reloaded = { ...IDENTITY, slotRevision: 2 };
    expect(explain(ramPages, reloaded, TOKENS)).toMatchObject({
      kind: 'revision',
      changedRevisions: ['slot'],
    });
  });

  it('names the revision that changed at a later page, after the pages the new revision holds', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    const reloaded = { ...IDENTITY, slotRevision: 2 };
    fill(ramPages, reloaded, TOKENS.slice(0, 16));
    expect(explain(ramPages, reloaded, TOKENS)).toMatchObject({
      kind: 'revision',
      numCachedTokens: 16,
      changedRevisions: ['slot'],
    });
  });

  it('says the pages were evicted when they were cached once', () => {
    const ramPages = new RamPages(8);
    fill(ramPages, IDENTITY, TOKENS);
    ramPages.evict(Infinity);
    expect(explain(ramPages, IDENTITY, TOKENS)).toMatchObject({ kind: 'evicted', numCachedTokens: 0 });
  });
});
