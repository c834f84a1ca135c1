import { createHash } from 'node:crypto';

/**
 * Everything a cached page's K/V depends on besides its tokens (DESIGN §1). Two pages are
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

/** The map key of a page: identity, position and chain hash, all of them. */
export function pageKey(identity: PageIdentity, pageIndex: number, hash: string): string {
  const { modelRevision, tokenizerRevision, layoutRevision, slotRevision } = identity;
  return `${modelRevision}/${tokenizerRevision}/${layoutRevision}/${slotRevision}/${pageIndex}/${hash}`;
}

/** The key prefix shared by every page of one identity (used to drop a rebuilt slot's pages). */
export function identityPrefix(identity: PageIdentity): string {
  return pageKey(identity, 0, '').replace(/0\/$/, '');
}
