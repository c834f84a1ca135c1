import { describe, expect, it } from 'vitest';
import { PageStore } from '../../../../src-main/runtime/pages/page-store';
import type { PageIdentity } from '../../../../src-main/runtime/pages/page-key';
import { IDENTITY, TOKENS, fill } from '../../../support/pages';

/** Looks up like the scheduler (one token always left to prefill) and explains the result. */
function explain(store: PageStore, identity: PageIdentity, tokens: number[]) {
  const maxPages = Math.floor((tokens.length - 1) / 8);
  const found = store.lookup(identity, tokens, maxPages);
  return store.explainMiss(identity, tokens, found, maxPages);
}

describe('why a page lookup found no more', () => {
  it('nothing cached starts like the prompt', () => {
    expect(explain(new PageStore(8), IDENTITY, TOKENS)).toMatchObject({
      kind: 'no-prefix',
      numCachedTokens: 0,
    });
  });

  it('every full page hit: only the unaligned tail is left', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const longer = [...TOKENS, 1, 2, 3];
    expect(explain(store, IDENTITY, longer)).toMatchObject({
      kind: 'unaligned-tail',
      numCachedTokens: 40,
      numPromptTokens: 43,
    });
  });

  it('names the first token where the prompt leaves the cached one', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const changed = [...TOKENS];
    changed[21] = 7;
    expect(explain(store, IDENTITY, changed)).toMatchObject({
      kind: 'diverged',
      numCachedTokens: 16,
      divergedAtToken: 21,
    });
  });

  it('names the revision that changed when the same tokens are cached under another', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const reloaded = { ...IDENTITY, slotRevision: 2 };
    expect(explain(store, reloaded, TOKENS)).toMatchObject({ kind: 'revision', changedRevisions: ['slot'] });
  });

  it('names the revision that changed at a later page, after the pages the new revision holds', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    const reloaded = { ...IDENTITY, slotRevision: 2 };
    fill(store, reloaded, TOKENS.slice(0, 16));
    expect(explain(store, reloaded, TOKENS)).toMatchObject({
      kind: 'revision',
      numCachedTokens: 16,
      changedRevisions: ['slot'],
    });
  });

  it('says the pages were evicted when they were cached once', () => {
    const store = new PageStore(8);
    fill(store, IDENTITY, TOKENS);
    store.evict(Infinity);
    expect(explain(store, IDENTITY, TOKENS)).toMatchObject({ kind: 'evicted', numCachedTokens: 0 });
  });
});
