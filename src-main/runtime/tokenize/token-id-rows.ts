/**
 * One text piece's token ids as the history keeps them: valid only for the tokenizer (files
 * and code) that `tokenizerKey` names, and only for the exact text whose SHA-256 is `textKey`.
 */
export interface TokenIdRow {
  /** The tokenizer's content revision and the encoding code's revision (tokenIdsKeyOf). */
  tokenizerKey: string;
  /** SHA-256 (base64url) of the piece's reading and its exact text: the text itself is not kept. */
  textKey: string;
  tokenIds: Int32Array;
  /** When it was last written or read (wall-clock epoch ms): the oldest go first past the cap. */
  lastUsedWallMs: number;
}

/**
 * Where remembered token ids live (the history's `token_pieces` table; see
 * history/queries/token-pieces.ts). Every call is synchronous and small.
 */
export interface TokenIdRows {
  /** The ids kept for this key, or null. */
  find(tokenizerKey: string, textKey: string): Int32Array | null;
  /** Writes rows in one transaction, then drops the least recently used beyond `maxRows`. */
  insert(rows: readonly TokenIdRow[], maxRows: number): void;
  /** Forgets every row (null) or the rows of these tokenizer keys. */
  forget(tokenizerKeys: readonly string[] | null): number;
}
