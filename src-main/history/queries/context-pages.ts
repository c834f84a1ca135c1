import type Database from 'better-sqlite3';
import type { ConversationLeaf, DiskPageRow, DiskPageRows } from '../../runtime/pages/disk-page-rows';

interface StoredRow {
  file_name: string;
  model_revision: string;
  tokenizer_revision: string;
  layout_revision: string;
  page_size_tokens: number;
  page_index: number;
  parent_hash: string;
  chain_hash: string;
  token_ids: Buffer;
  size_bytes: number;
  checksum_sha256: string;
  last_used_wall_ms: number;
}

/**
 * The disk tier's page index over the history's `context_pages` table (schema v7), and which
 * conversation reached which page over `conversation_pages` (v8).
 */
export function contextPageQueries(db: Database.Database): DiskPageRows {
  const all = db.prepare('SELECT * FROM context_pages ORDER BY last_used_wall_ms, rowid');
  const insert = db.prepare(
    `INSERT OR REPLACE INTO context_pages (file_name, model_revision, tokenizer_revision,
       layout_revision, page_size_tokens, page_index, parent_hash, chain_hash, token_ids,
       size_bytes, checksum_sha256, last_used_wall_ms)
     VALUES (@fileName, @modelRevision, @tokenizerRevision, @layoutRevision, @pageSize,
       @pageIndex, @parentHash, @chainHash, @tokenIds, @numBytes, @checksum, @lastUsedWallMs)`,
  );
  const remove = db.prepare('DELETE FROM context_pages WHERE file_name = ?');
  const touch = db.prepare('UPDATE context_pages SET last_used_wall_ms = ? WHERE file_name = ?');
  const insertAll = db.transaction((rows: readonly DiskPageRow[]) => {
    for (const row of rows) insert.run({ ...row, tokenIds: tokenBytes(row.tokenIds) });
  });
  const removeAll = db.transaction((names: readonly string[]) => {
    for (const name of names) remove.run(name);
  });
  const touchAll = db.transaction((names: readonly string[], atWallMs: number) => {
    for (const name of names) touch.run(atWallMs, name);
  });
  const note = db.prepare(
    `INSERT OR IGNORE INTO conversation_pages (conversation_id, identity_key, page_index, chain_hash)
     VALUES (@conversationId, @identityKey, @pageIndex, @chainHash)`,
  );
  const leaves = db.prepare(
    `SELECT conversation_id AS conversationId, identity_key AS identityKey, page_index AS pageIndex,
       chain_hash AS chainHash FROM conversation_pages`,
  );
  const removeConversation = db.prepare('DELETE FROM conversation_pages WHERE conversation_id = ?');
  return {
    noteConversation: (leaf) => void note.run(leaf),
    conversationLeaves: () => leaves.all() as ConversationLeaf[],
    removeConversation: (conversationId) => void removeConversation.run(conversationId),
    all: () => (all.all() as StoredRow[]).map(fromStored),
    insert: (rows) => insertAll(rows),
    remove: (names) => removeAll(names),
    touch: (names, atWallMs) => touchAll(names, atWallMs),
  };
}

/** Token ids as int32 little-endian bytes (the column's format on every machine). */
function tokenBytes(tokenIds: Int32Array): Buffer {
  const bytes = Buffer.alloc(tokenIds.length * 4);
  tokenIds.forEach((id, i) => bytes.writeInt32LE(id, i * 4));
  return bytes;
}

function fromStored(row: StoredRow): DiskPageRow {
  const tokenIds = new Int32Array(row.token_ids.length / 4);
  for (let i = 0; i < tokenIds.length; i++) tokenIds[i] = row.token_ids.readInt32LE(i * 4);
  return {
    fileName: row.file_name,
    modelRevision: row.model_revision,
    tokenizerRevision: row.tokenizer_revision,
    layoutRevision: row.layout_revision,
    pageSize: row.page_size_tokens,
    pageIndex: row.page_index,
    parentHash: row.parent_hash,
    chainHash: row.chain_hash,
    tokenIds,
    numBytes: row.size_bytes,
    checksum: row.checksum_sha256,
    lastUsedWallMs: row.last_used_wall_ms,
  };
}
