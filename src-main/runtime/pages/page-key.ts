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
