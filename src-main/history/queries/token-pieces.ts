import type Database from 'better-sqlite3';
import type { TokenIdRow, TokenIdRows } from '../../runtime/tokenize/token-id-rows';

/** Remembered token ids over the history's `token_pieces` table (schema v10). */
export function tokenPieceQueries(db: Database.Database): TokenIdRows {
  const find = db.prepare('SELECT token_ids FROM token_pieces WHERE tokenizer_key = ? AND text_sha256 = ?');
  const insert = db.prepare(
    `INSERT OR REPLACE INTO token_pieces (tokenizer_key, text_sha256, token_ids, last_used_wall_ms)
     VALUES (?, ?, ?, ?)`,
  );
  const count = db.prepare('SELECT count(*) AS n FROM token_pieces');
  const trim = db.prepare(
    `DELETE FROM token_pieces WHERE (tokenizer_key, text_sha256) IN
       (SELECT tokenizer_key, text_sha256 FROM token_pieces ORDER BY last_used_wall_ms LIMIT ?)`,
  );
  const insertAll = db.transaction((rows: readonly TokenIdRow[], maxRows: number) => {
    for (const row of rows)
      insert.run(row.tokenizerKey, row.textKey, idBytes(row.tokenIds), row.lastUsedWallMs);
    const excess = (count.get() as { n: number }).n - maxRows;
    if (excess > 0) trim.run(excess);
  });
  const forgetAll = db.prepare('DELETE FROM token_pieces');
  const forgetKey = db.prepare('DELETE FROM token_pieces WHERE tokenizer_key = ?');
  const forgetKeys = db.transaction((keys: readonly string[]) =>
    keys.reduce((sum, key) => sum + forgetKey.run(key).changes, 0),
  );
  return {
    find: (tokenizerKey, textKey) => {
      const row = find.get(tokenizerKey, textKey) as { token_ids: Buffer } | undefined;
      return row ? idsOf(row.token_ids) : null;
    },
    insert: (rows, maxRows) => insertAll(rows, maxRows),
    forget: (keys) => (keys === null ? forgetAll.run().changes : forgetKeys(keys)),
  };
}

/** Token ids as int32 little-endian bytes (the column's format on every machine). */
function idBytes(ids: Int32Array): Buffer {
  const bytes = Buffer.alloc(ids.length * 4);
  ids.forEach((id, i) => bytes.writeInt32LE(id, i * 4));
  return bytes;
}

function idsOf(bytes: Buffer): Int32Array {
  const ids = new Int32Array(bytes.length / 4);
  for (let i = 0; i < ids.length; i++) ids[i] = bytes.readInt32LE(i * 4);
  return ids;
}
