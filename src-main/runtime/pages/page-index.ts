import { CHAIN_ROOT, identityKey } from './page-key';
import type { LinkKeys } from './page-key';
import type { PageIdentity } from './page-key';
import type { CachedPage } from './ram-pages';

/**
 * The lookup's index of stored pages: per identity, each page under its position, its parent's
 * chain hash and its own token ids, verbatim. A lookup walks a prompt's pages from the first, each
 * step keyed by the hash of the page found before it, so it hashes nothing: the chain hashes it
 * follows are the stored pages' own, computed once when each page was stored. The identity's
 * key is built once per lookup, not once per page.
 */
export class PageIndex {
  private readonly byIdentity = new Map<string, Map<string, CachedPage>>();

  /** `links`: the store's key speller, shared (each call returns its own string). */
  constructor(
    private readonly pageSize: number,
    private readonly links: LinkKeys,
  ) {}

  /** Indexes a page the store just stored (one page per link key and identity). */
  add(page: CachedPage): void {
    let pages = this.byIdentity.get(page.identityKey);
    if (!pages) this.byIdentity.set(page.identityKey, (pages = new Map()));
    pages.set(page.linkKey, page);
  }

  /** Forgets a page the store dropped; a page it never indexed (or that was replaced) is ignored. */
  remove(page: CachedPage): void {
    const pages = this.byIdentity.get(page.identityKey);
    if (pages?.get(page.linkKey) !== page) return;
    pages.delete(page.linkKey);
    if (pages.size === 0) this.byIdentity.delete(page.identityKey);
  }

  /** Every stored page of one identity (a copy: the caller may remove them as it goes). */
  pagesOf(identity: PageIdentity): CachedPage[] {
    return [...(this.byIdentity.get(identityKey(identity))?.values() ?? [])];
  }

  /**
   * The longest run of leading pages of `tokenIds` (at most `maxPages`). A page counts only when
   * its stored token ids equal the prompt's and it follows the page before it (fail closed).
   */
  leadingPages(identity: PageIdentity, tokenIds: readonly number[], maxPages: number): CachedPage[] {
    const found: CachedPage[] = [];
    const pages = this.byIdentity.get(identityKey(identity));
    if (!pages) return found;
    let parent = CHAIN_ROOT;
    for (let pageIndex = 0; pageIndex < maxPages; pageIndex++) {
      const from = pageIndex * this.pageSize;
      if (from + this.pageSize > tokenIds.length) break;
      const page = pages.get(this.links.of(pageIndex, parent, tokenIds, from));
      if (!page || page.parentHash !== parent || !sameTokens(page.tokenIds, tokenIds, from)) break;
      found.push(page);
      parent = page.hash;
    }
    return found;
  }
}

/** Whether a stored page's token ids equal `tokenIds` from `from` on (its whole length). */
export function sameTokens(stored: Int32Array, tokenIds: ArrayLike<number>, from = 0): boolean {
  if (from + stored.length > tokenIds.length) return false;
  for (let i = 0; i < stored.length; i++) if (stored[i] !== tokenIds[from + i]) return false;
  return true;
}
