import { createHash } from 'node:crypto';

/**
 * Everything a cached page's K/V depends on besides its tokens (docs/design.md). Two pages are
 * interchangeable only when every field matches; any doubt is a miss (fail closed).
 */
export interface PageIdentity {
  modelRevision: string;
  tokenizerRevision: string;
  /** K/V dtype, geometry and page size. */
  layoutRevision: string;
  /** Bumps each time the slot's session is (re)built. */
  slotRevision: number;
}

/** The root of every chain: no parent page. */
export const CHAIN_ROOT = '';

/** Hash of a page: its parent's hash plus its own token ids, so equal hashes mean equal prefixes. */
export function chainHash(parentHash: string, tokenIds: ArrayLike<number>): string {
  const hash = createHash('sha256').update(parentHash).update('|');
  hash.update(new Uint8Array(Int32Array.from(tokenIds).buffer));
  return hash.digest('base64url');
}

/** Every field of an identity in one string: pages with equal identity keys are interchangeable. */
export function identityKey(identity: PageIdentity): string {
  const { modelRevision, tokenizerRevision, layoutRevision, slotRevision } = identity;
  return `${modelRevision}/${tokenizerRevision}/${layoutRevision}/${slotRevision}`;
}

/** The map key of a page: identity, position and chain hash, all of them. */
export function pageKey(identity: PageIdentity, pageIndex: number, hash: string): string {
  return `${identityKey(identity)}/${pageIndex}/${hash}`;
}

/**
 * Spells a page's place in its chain exactly, without hashing: position, parent's chain hash
 * and its `pageSize` token ids as two UTF-16 code units each (a reversible spelling: equal keys
 * mean equal tokens after an equal parent, so they stand for equal chain hashes). One buffer is
 * reused, so a key allocates only its string.
 */
export class LinkKeys {
  private readonly units: number[];

  constructor(private readonly pageSize: number) {
    this.units = new Array<number>(2 * pageSize).fill(0);
  }

  /** The link key of page `pageIndex` whose tokens are `tokenIds` from `from` on. */
  of(pageIndex: number, parentHash: string, tokenIds: ArrayLike<number>, from: number): string {
    const units = this.units;
    for (let i = 0; i < this.pageSize; i++) {
      const id = tokenIds[from + i]!;
      units[2 * i] = id & 0xffff;
      units[2 * i + 1] = id >>> 16;
    }
    return `${pageIndex}/${parentHash}/${String.fromCharCode(...units)}`;
  }
}
