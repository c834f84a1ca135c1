import { restoreLiterals } from './chat-literals';
import { chunkAtSpaces } from './safe-cuts';

/** Encodes one piece of text that holds no special token. */
export type EncodePiece = (text: string) => number[];

/** Whether a special token takes the whitespace before it (lstrip) or after it (rstrip) with it. */
export interface TokenStrip {
  lstrip: boolean;
  rstrip: boolean;
}

/**
 * Where pieces' ids outlive this cache (runtime/tokenize/remembered-token-ids.ts: the history
 * database), keyed by the piece's exact text and its reading (as text with special tokens
 * recognised, or plain). `find` answers only ids written for that exact key.
 */
export interface PieceBacking {
  find(text: string, isPlain: boolean): number[] | null;
  keep(text: string, isPlain: boolean, ids: readonly number[]): void;
}

/** Whitespace as llama.cpp strips it next to a token (C's isspace). */
const LEADING_SPACE = /^[ \t\n\v\f\r]+/;
const TRAILING_SPACE = /[ \t\n\v\f\r]+$/;

const MAX_ENTRIES = 4096;
const MIN_CACHED_CHARS = 64;
/** Long pieces are cached in chunks of about this many characters (see chunkAtSpaces). */
export const CHUNK_CHARS = 256;

/**
 * Tokenizes text piece by piece between special tokens and remembers each piece's ids. A chat
 * history is re-sent every turn with each message between special markers, so all but the
 * newest message are cache hits. Hugging Face tokenizers split at added tokens before any
 * normalization or pre-tokenization, so piecewise encoding equals whole-text encoding; the
 * constructor's caller checks that on a sample and falls back to whole-text encoding if not.
 * When the tokenizer allows cuts at spaces (safe-cuts.ts), a long piece is cached in chunks,
 * so a raw-text prompt that repeats an earlier one and adds to it re-encodes only its tail.
 * A chat's placeholders (chat-literals.ts) are put back into each part before it is encoded, and
 * a part that then holds special-token text is encoded by `encodePlain`, which reads it as text.
 */
export class SegmentCache {
  private readonly pieces = new Map<string, number[]>();
  private readonly splitter: RegExp | null;
  private backing: PieceBacking | null = null;

  constructor(
    private readonly specialIds: ReadonlyMap<string, number>,
    private readonly encodePiece: EncodePiece,
    private readonly encodePlain: EncodePiece,
    private readonly chunkChars: number | null = null,
    private readonly strips: ReadonlyMap<string, TokenStrip> = new Map(),
  ) {
    const tokens = [...specialIds.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.splitter = tokens.length > 0 ? new RegExp(`(${tokens.join('|')})`) : null;
  }

  /** Keeps every piece this cache learns in `backing` too, and asks it on a miss. */
  backWith(backing: PieceBacking): void {
    this.backing = backing;
  }

  /** Token ids of `text`: special tokens by lookup, the pieces between them from the cache. */
  encode(text: string, literals: readonly string[] = []): number[] {
    return this.encodeCounted(text, literals).ids;
  }

  /** `encode`, with how many ids each part of the text gave (what `learn` needs elsewhere). */
  encodeCounted(text: string, literals: readonly string[] = []): { ids: number[]; numIdsPerPart: number[] } {
    const ids: number[] = [];
    const numIdsPerPart: number[] = [];
    for (const part of this.parts(text)) {
      const special = this.specialIds.get(part);
      const partIds = special !== undefined ? [special] : this.piece(restoreLiterals(part, literals), part);
      for (const id of partIds) ids.push(id);
      numIdsPerPart.push(partIds.length);
    }
    return { ids, numIdsPerPart };
  }

  /**
   * Caches the parts of `text` from an `encodeCounted` made by another instance over the same
   * tokenizer (the tokenizer thread's), so this one need not encode them again. Counts that do
   * not line up with this text's parts teach nothing.
   */
  learn(
    text: string,
    ids: readonly number[],
    numIdsPerPart: readonly number[],
    literals: readonly string[] = [],
  ): void {
    const parts = [...this.parts(text)];
    if (parts.length !== numIdsPerPart.length) return;
    if (numIdsPerPart.reduce((sum, n) => sum + n, 0) !== ids.length) return;
    let at = 0;
    parts.forEach((part, i) => {
      const numIds = numIdsPerPart[i]!;
      if (part.length >= MIN_CACHED_CHARS && !this.specialIds.has(part)) {
        const text = restoreLiterals(part, literals);
        const partIds = ids.slice(at, at + numIds);
        this.remember(text, partIds);
        this.backing?.keep(text, text !== part, partIds);
      }
      at += numIds;
    });
  }

  /** Characters of `text` that `encode` would have to tokenize afresh (not special, not cached). */
  numUncachedChars(text: string, literals: readonly string[] = []): number {
    let numChars = 0;
    for (const part of this.parts(text))
      if (!this.specialIds.has(part) && (part.length < MIN_CACHED_CHARS || !this.isHeld(part, literals)))
        numChars += part.length;
    return numChars;
  }

  /**
   * The cached ids of `text`'s parts that are held here or in the backing, as [part text, ids]
   * pairs: what another instance (the tokenizer thread) need not encode again (rememberPieces).
   */
  heldPieces(text: string, literals: readonly string[] = []): [string, number[]][] {
    const held: [string, number[]][] = [];
    for (const part of this.parts(text)) {
      if (this.specialIds.has(part) || part.length < MIN_CACHED_CHARS || !this.isHeld(part, literals))
        continue;
      const restored = restoreLiterals(part, literals);
      held.push([restored, this.pieces.get(restored)!]);
    }
    return held;
  }

  /** Caches pieces another instance over the same tokenizer held (heldPieces). */
  rememberPieces(pieces: readonly (readonly [string, number[]])[]): void {
    for (const [text, ids] of pieces) if (text.length >= MIN_CACHED_CHARS) this.remember(text, ids);
  }

  /** Whether a part's ids are here, or in the backing (then brought here for the encode that follows). */
  private isHeld(part: string, literals: readonly string[]): boolean {
    const text = restoreLiterals(part, literals);
    if (this.pieces.has(text)) return true;
    const found = this.backing?.find(text, text !== part) ?? null;
    if (found) this.remember(text, found);
    return found !== null;
  }

  /** Special tokens and the text between them, long text cut into chunks when that is exact. */
  private *parts(text: string): Generator<string> {
    const split = this.splitter ? text.split(this.splitter) : [text];
    if (this.strips.size > 0) this.strip(split);
    for (const part of split) {
      if (part.length === 0) continue;
      if (this.chunkChars === null || part.length <= 2 * this.chunkChars || this.specialIds.has(part))
        yield part;
      else yield* chunkAtSpaces(part, this.chunkChars);
    }
  }

  /**
   * Cuts the whitespace a stripping special token takes with it from the text beside it. `split`
   * is a split by the one-group splitter: text and special tokens alternate, tokens at odd indices.
   */
  private strip(split: string[]): void {
    for (let i = 1; i < split.length; i += 2) {
      const strip = this.strips.get(split[i]!);
      if (strip?.lstrip) split[i - 1] = split[i - 1]!.replace(TRAILING_SPACE, '');
      if (strip?.rstrip) split[i + 1] = split[i + 1]!.replace(LEADING_SPACE, '');
    }
  }

  /**
   * The ids of `text`, a part whose placeholders are put back (`escaped` is the part as written).
   * Special-token text in it came from a message, so it is read as text. Cached by `text`: a part
   * of a raw prompt never holds special-token text, so the two readings never share a key.
   */
  private piece(text: string, escaped: string): number[] {
    const encode = text === escaped ? this.encodePiece : this.encodePlain;
    if (text.length < MIN_CACHED_CHARS) return encode(text);
    const cached = this.pieces.get(text);
    if (cached) {
      this.pieces.delete(text);
      this.pieces.set(text, cached);
      return cached;
    }
    const isPlain = text !== escaped;
    const found = this.backing?.find(text, isPlain) ?? null;
    if (found) {
      this.remember(text, found);
      return found;
    }
    const ids = encode(text);
    this.remember(text, ids);
    this.backing?.keep(text, isPlain, ids);
    return ids;
  }

  private remember(text: string, ids: number[]): void {
    this.pieces.delete(text);
    this.pieces.set(text, ids);
    if (this.pieces.size > MAX_ENTRIES) this.pieces.delete(this.pieces.keys().next().value!);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
