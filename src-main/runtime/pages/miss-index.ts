import type { PageMiss } from '../../telemetry/timeline';
import { chainHash, pageKey } from './page-key';
import type { PageIdentity } from './page-key';

/** What the index keeps of a stored page. */
interface IndexedPage {
  key: string;
  pageIndex: number;
  hash: string;
  parentHash: string;
  tokenIds: Int32Array;
  identity: PageIdentity;
}

/** How many evicted pages are remembered (by position and chain hash) to explain later misses. */
const MAX_GONE = 8_192;

const REVISION_FIELDS = [
  ['model', 'modelRevision'],
  ['tokenizer', 'tokenizerRevision'],
  ['layout', 'layoutRevision'],
  ['slot', 'slotRevision'],
] as const;

/**
 * Explains page misses at the lookup: keeps, beside the page store, which pages share a parent
 * (to find the first divergent token), which token chains are cached under other revisions,
 * and which were evicted. Identity-free lookups here never make a hit: they only explain.
 */
export class MissIndex {
  private readonly byChain = new Map<string, Set<IndexedPage>>();
  private readonly byParent = new Map<string, Set<IndexedPage>>();
  private readonly gone = new Map<string, PageIdentity>();

  constructor(private readonly pageSize: number) {}

  added(page: IndexedPage): void {
    addTo(this.byChain, chainKey(page.pageIndex, page.hash), page);
    addTo(this.byParent, parentKey(page.identity, page.pageIndex, page.parentHash), page);
    this.gone.delete(chainKey(page.pageIndex, page.hash));
  }

  /** A page left the store; `isEvicted` remembers it so a later miss can say so. */
  removed(page: IndexedPage, isEvicted: boolean): void {
    removeFrom(this.byChain, chainKey(page.pageIndex, page.hash), page);
    removeFrom(this.byParent, parentKey(page.identity, page.pageIndex, page.parentHash), page);
    if (!isEvicted) return;
    this.gone.set(chainKey(page.pageIndex, page.hash), page.identity);
    if (this.gone.size > MAX_GONE) this.gone.delete(this.gone.keys().next().value!);
  }

  /**
   * Why a lookup that found `numFound` of at most `maxPages` pages stopped there. `parentHash` is
   * the last found page's chain hash (CHAIN_ROOT when none): the lookup computed it already.
   */
  explain(
    identity: PageIdentity,
    tokenIds: readonly number[],
    numFound: number,
    parentHash: string,
    maxPages: number,
  ): PageMiss {
    // Built in schema order (kind first), so an exported timeline reads back byte for byte.
    const miss = (kind: PageMiss['kind'], extra: Partial<PageMiss> = {}): PageMiss => ({
      kind,
      numCachedTokens: numFound * this.pageSize,
      numPromptTokens: tokenIds.length,
      pageSize: this.pageSize,
      divergedAtToken: extra.divergedAtToken ?? null,
      changedRevisions: extra.changedRevisions ?? [],
    });
    if (numFound >= maxPages) return miss('unaligned-tail');
    const slice = tokenIds.slice(numFound * this.pageSize, (numFound + 1) * this.pageSize);
    const hash = chainHash(parentHash, slice);
    const others = [...(this.byChain.get(chainKey(numFound, hash)) ?? [])].filter(
      (p) => p.key !== pageKey(identity, numFound, hash),
    );
    const elsewhere = others[0]?.identity ?? this.gone.get(chainKey(numFound, hash));
    if (elsewhere) {
      const changed = changedRevisions(elsewhere, identity);
      return changed.length > 0 ? miss('revision', { changedRevisions: changed }) : miss('evicted');
    }
    const siblings = this.byParent.get(parentKey(identity, numFound, parentHash));
    if (!siblings || siblings.size === 0) return miss(numFound === 0 ? 'no-prefix' : 'beyond-cache');
    const offset = Math.min(...[...siblings].map((p) => firstDifference(p.tokenIds, slice)));
    return miss('diverged', { divergedAtToken: numFound * this.pageSize + offset });
  }
}

function chainKey(pageIndex: number, hash: string): string {
  return `${pageIndex}/${hash}`;
}

function parentKey(identity: PageIdentity, pageIndex: number, parentHash: string): string {
  return `${pageKey(identity, pageIndex, '')}${parentHash}`;
}

function changedRevisions(before: PageIdentity, now: PageIdentity): PageMiss['changedRevisions'] {
  return REVISION_FIELDS.filter(([, field]) => before[field] !== now[field]).map(([name]) => name);
}

function firstDifference(stored: Int32Array, tokenIds: readonly number[]): number {
  const n = Math.min(stored.length, tokenIds.length);
  for (let i = 0; i < n; i++) if (stored[i] !== tokenIds[i]) return i;
  return n;
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
