import { CHAIN_ROOT } from '../../src-main/runtime/pages/page-key';
import type { PageIdentity } from '../../src-main/runtime/pages/page-key';
import type { RamPages } from '../../src-main/runtime/pages/ram-pages';

/** One model/tokenizer/layout/slot identity for page-store tests. */
export const IDENTITY: PageIdentity = {
  modelRevision: 'm1',
  tokenizerRevision: 't1',
  layoutRevision: 'l1',
  slotRevision: 1,
};

/** 40 distinct tokens: five full pages of 8. */
export const TOKENS = Array.from({ length: 40 }, (_, i) => 100 + i);

/** A fresh shared buffer of `byteLength` bytes, as a page's K/V data. */
export const dataOf = (byteLength: number) => ({
  buffer: new SharedArrayBuffer(byteLength),
  byteOffset: 0,
  byteLength,
});

/** Inserts the full pages of `tokens` (the store's page size) and releases them, as a finished request would. */
export function fill(ramPages: RamPages, identity: PageIdentity, tokens: number[]): void {
  const size = ramPages.pageSize;
  let parent = CHAIN_ROOT;
  for (let p = 0; (p + 1) * size <= tokens.length; p++) {
    const page = ramPages.insertHeld(identity, p, parent, tokens.slice(p * size, (p + 1) * size), dataOf(64));
    ramPages.release(page);
    parent = page.hash;
  }
}
