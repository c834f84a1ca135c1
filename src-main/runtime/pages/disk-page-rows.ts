/**
 * One context page kept on disk, as its index row says: enough to find it by its place in a
 * chain and to check the file before its bytes are used, without reading the file.
 */
export interface DiskPageRow {
  /** The page file's name inside the pages folder (a hash of everything that names the page). */
  fileName: string;
  modelRevision: string;
  tokenizerRevision: string;
  /** K/V dtype, geometry and page size (layoutRevisionOf). */
  layoutRevision: string;
  pageSize: number;
  pageIndex: number;
  /** The previous page's chain hash (CHAIN_ROOT for page 0). */
  parentHash: string;
  chainHash: string;
  tokenIds: Int32Array;
  /** The file's exact length. */
  numBytes: number;
  /** SHA-256 of the file's bytes, base64url. */
  checksum: string;
  /** When a lookup last used it (wall-clock epoch ms): least recently used goes first. */
  lastUsedWallMs: number;
}

/** The last page one request of a conversation held: it and the pages before it in its chain are that conversation's. */
export interface ConversationLeaf {
  conversationId: string;
  /** The page identity without the slot revision (diskIdentityKey). */
  identityKey: string;
  pageIndex: number;
  chainHash: string;
}

/**
 * Where the disk tier keeps its index (the history's `context_pages` table; see
 * history/queries/context-pages.ts). Every call is synchronous and small: a batch of rows per
 * call, in one transaction.
 */
export interface DiskPageRows {
  /** Every row, least recently used first. */
  all(): DiskPageRow[];
  insert(rows: readonly DiskPageRow[]): void;
  remove(fileNames: readonly string[]): void;
  touch(fileNames: readonly string[], atWallMs: number): void;
  /** Records that a conversation used or wrote the chain ending at this page (kept once). */
  noteConversation(leaf: ConversationLeaf): void;
  /** Every conversation's recorded leaves. */
  conversationLeaves(): ConversationLeaf[];
  /** Forgets a conversation's leaves (it was deleted). */
  removeConversation(conversationId: string): void;
}
