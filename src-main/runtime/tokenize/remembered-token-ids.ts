import { createHash } from 'node:crypto';
import type { PieceBacking } from './segment-cache';
import type { TokenIdRow, TokenIdRows } from './token-id-rows';

/**
 * The code that turns a piece of text into ids: the tokenizer library (its version as
 * package.json pins it) and the piece cache's way of cutting text. Part of every key, so ids
 * written by another version are never found. A test checks it names the pinned version.
 */
export const TOKEN_IDS_CODE_REVISION = '@huggingface/tokenizers@0.2.0;segments-1';

/** Rows kept at most; the least recently used go first (a piece is ~256 characters of text). */
export const MAX_TOKEN_ID_ROWS = 20_000;

/** How long a written piece waits for others before they go to the history in one transaction. */
const WRITE_DELAY_MS = 200;

/** The key of a tokenizer's remembered ids: its files' revision and the encoding code's. */
export function tokenIdsKeyOf(tokenizerRevision: string): string {
  return `${tokenizerRevision};${TOKEN_IDS_CODE_REVISION}`;
}

/**
 * A tokenizer's piece cache backed by the history database, so a restart does not tokenize a
 * long conversation again: each piece's ids are written behind the request (batched, after a
 * short delay, never on its way to the first token) and read back by the piece's exact text.
 * Keys are hashes of the exact text and reading under one tokenizer key, so an edited message,
 * another tokenizer revision or another library version finds nothing. A failing write is said
 * once in the log and serving goes on with what is in memory.
 */
export class RememberedTokenIds implements PieceBacking {
  private readonly pending = new Map<string, TokenIdRow>();
  private timer: NodeJS.Timeout | null = null;
  private hasWarned = false;

  constructor(
    private readonly rows: TokenIdRows,
    readonly tokenizerKey: string,
    private readonly wallNow: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  find(text: string, isPlain: boolean): number[] | null {
    const textKey = textKeyOf(text, isPlain);
    const held = this.pending.get(textKey)?.tokenIds ?? this.read(textKey);
    if (!held) return null;
    this.queue(textKey, held); // its last use, written with the next batch
    return Array.from(held);
  }

  keep(text: string, isPlain: boolean, ids: readonly number[]): void {
    this.queue(textKeyOf(text, isPlain), Int32Array.from(ids));
  }

  /** Writes what waits now (close, tests). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending.clear();
    try {
      this.rows.insert(rows, MAX_TOKEN_ID_ROWS);
    } catch (error) {
      this.warnOnce(`token ids of the conversation not remembered: ${(error as Error).message}`);
    }
  }

  /** Drops what waits unwritten (its conversation or model was forgotten). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }

  private read(textKey: string): Int32Array | null {
    try {
      return this.rows.find(this.tokenizerKey, textKey);
    } catch (error) {
      this.warnOnce(`remembered token ids not read: ${(error as Error).message}`);
      return null;
    }
  }

  private queue(textKey: string, tokenIds: Int32Array): void {
    this.pending.set(textKey, {
      tokenizerKey: this.tokenizerKey,
      textKey,
      tokenIds,
      lastUsedWallMs: this.wallNow(),
    });
    this.timer ??= setTimeout(() => this.flush(), WRITE_DELAY_MS);
    this.timer.unref?.();
  }

  private warnOnce(message: string): void {
    if (this.hasWarned) return;
    this.hasWarned = true;
    this.warn(message);
  }
}

/** SHA-256 of a piece's reading and exact text, base64url: the row's key; the text is not kept. */
function textKeyOf(text: string, isPlain: boolean): string {
  return createHash('sha256')
    .update(isPlain ? 'plain\0' : 'special\0')
    .update(text)
    .digest('base64url');
}
