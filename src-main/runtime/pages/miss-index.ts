import type { PageMiss } from '../../telemetry/timeline/diagnosis';
import { identityKey } from './page-key';
import type { LinkKeys } from './page-key';
import type { PageIdentity } from './page-key';

/** What the index keeps of a stored page. */
interface IndexedPage {
  /** The identity's key (identityKey): pages of equal keys are interchangeable. */
  identityKey: string;
  pageIndex: number;
  parentHash: string;
  /** Its link key (LinkKeys), spelled once by the store. */
  linkKey: string;
  tokenIds: Int32Array;
  identity: PageIdentity;
}

/**
 * How many evicted pages are remembered (by their link key, ~4 bytes per token: 0.5 MB at the
 * default 16-token pages) to explain later misses.
 */
const MAX_GONE = 8_192;

const REVISION_FIELDS = [
  ['model', 'modelRevision'],
  ['tokenizer', 'tokenizerRevision'],
  ['layout', 'layoutRevision'],
  ['slot', 'slotRevision'],
] as const;

/**
 * Explains page misses at the lookup: keeps, beside the RAM tier, which pages share a parent
 * (to find the first divergent token), which token chains are cached under other revisions,
 * and which were evicted. Identity-free lookups here never make a hit: they only explain. Chains
 * are keyed by link key (LinkKeys), so explaining a miss hashes nothing: it runs on the request's
 * way to its first token.
 */
export class MissIndex {
  private readonly byChain = new Map<string, Set<IndexedPage>>();
  private readonly byParent = new Map<string, Set<IndexedPage>>();
  private readonly gone = new Map<string, PageIdentity>();
  /** `links`: the store's key speller, shared (each call returns its own string). */
  constructor(
    private readonly pageSize: number,
    private readonly links: LinkKeys,
  ) {}

  added(page: IndexedPage): void {
    addTo(this.byChain, page.linkKey, page);
    addTo(this.byParent, parentKey(page.identityKey, page.pageIndex, page.parentHash), page);
    this.gone.delete(page.linkKey);
  }

  /** A page left the store; `isEvicted` remembers it so a later miss can say so. */
  removed(page: IndexedPage, isEvicted: boolean): void {
    removeFrom(this.byChain, page.linkKey, page);
    removeFrom(this.byParent, parentKey(page.identityKey, page.pageIndex, page.parentHash), page);
    if (!isEvicted) return;
    this.gone.set(page.linkKey, page.identity);
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
    const from = numFound * this.pageSize;
    const link = this.links.of(numFound, parentHash, tokenIds, from);
    // Same link and same identity would be the very page the lookup missed: only others count.
    const ownIdentity = identityKey(identity);
    const others = [...(this.byChain.get(link) ?? [])].filter((p) => p.identityKey !== ownIdentity);
    const elsewhere = others[0]?.identity ?? this.gone.get(link);
    if (elsewhere) {
      const changed = changedRevisions(elsewhere, identity);
      return changed.length > 0 ? miss('revision', { changedRevisions: changed }) : miss('evicted');
    }
    const siblings = this.byParent.get(parentKey(ownIdentity, numFound, parentHash));
    if (!siblings || siblings.size === 0) return miss(numFound === 0 ? 'no-prefix' : 'beyond-cache');
    const slice = tokenIds.slice(from, from + this.pageSize);
    const offset = Math.min(...[...siblings].map((p) => firstDifference(p.tokenIds, slice)));
    return miss('diverged', { divergedAtToken: numFound * this.pageSize + offset });
  }
}

/** Pages of one identity and position that follow the same parent page (siblings). */
function parentKey(identityKey: string, pageIndex: number, parentHash: string): string {
  return `${identityKey}/${pageIndex}/${parentHash}`;
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
