/** Encodes one piece of text that holds no special token. */
export type EncodePiece = (text: string) => number[];

const MAX_ENTRIES = 4096;
const MIN_CACHED_CHARS = 64;

/**
 * Tokenizes text piece by piece between special tokens and remembers each piece's ids. A chat
 * history is re-sent every turn with each message between special markers, so all but the
 * newest message are cache hits. Hugging Face tokenizers split at added tokens before any
 * normalization or pre-tokenization, so piecewise encoding equals whole-text encoding; the
 * constructor's caller checks that on a sample and falls back to whole-text encoding if not.
 */
export class SegmentCache {
  private readonly pieces = new Map<string, number[]>();
  private readonly splitter: RegExp | null;

  constructor(
    private readonly specialIds: ReadonlyMap<string, number>,
    private readonly encodePiece: EncodePiece,
  ) {
    const tokens = [...specialIds.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.splitter = tokens.length > 0 ? new RegExp(`(${tokens.join('|')})`) : null;
  }

  /** Token ids of `text`: special tokens by lookup, the pieces between them from the cache. */
  encode(text: string): number[] {
    if (!this.splitter) return this.piece(text);
    const ids: number[] = [];
    for (const part of text.split(this.splitter)) {
      if (part.length === 0) continue;
      const special = this.specialIds.get(part);
      if (special !== undefined) ids.push(special);
      else for (const id of this.piece(part)) ids.push(id);
    }
    return ids;
  }

  private piece(text: string): number[] {
    if (text.length < MIN_CACHED_CHARS) return this.encodePiece(text);
    const cached = this.pieces.get(text);
    if (cached) {
      this.pieces.delete(text);
      this.pieces.set(text, cached);
      return cached;
    }
    const ids = this.encodePiece(text);
    this.pieces.set(text, ids);
    if (this.pieces.size > MAX_ENTRIES) this.pieces.delete(this.pieces.keys().next().value!);
    return ids;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
