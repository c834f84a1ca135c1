// Ids back to text without the tokenizer: the vocabulary's token strings, packed into one buffer
// by the thread that built the tokenizer, and the library's own decoder classes over them. The
// serving thread decodes a large vocabulary (a GGUF's 128k–256k tokens) this way instead of
// building the whole tokenizer (hundreds of milliseconds) for the first answer it streams.

import {
  BPEDecoder,
  ByteFallbackDecoder,
  ByteLevelDecoder,
  CTCDecoder,
  FuseDecoder,
  MetaspaceDecoder,
  ReplaceDecoder,
  SequenceDecoder,
  StripDecoder,
  WordPieceDecoder,
} from '@huggingface/tokenizers';
import type { Decoder, Tokenizer } from '@huggingface/tokenizers';

/**
 * What decoding needs of a built tokenizer, as plain data (structured clone): each id's token
 * string (the model's vocabulary with the added tokens in place) as UTF-8 in one buffer, the
 * special tokens `decode` skips, the added tokens' text, and the decoder's configuration.
 */
export interface PackedVocab {
  /** Token strings, UTF-8, one after another; id i spans offsets[i]..offsets[i + 1]. */
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** 1 where the id has a token string (a vocabulary may have holes). */
  isPresent: Uint8Array;
  unkToken: string | null;
  /** Token strings `decode` drops when skipping special tokens (the library's special_tokens). */
  specialTokens: string[];
  /** The added tokens' text (a byte-level decoder passes them through as they are). */
  addedContents: string[];
  decoder: Record<string, unknown> | null;
  endOfWordSuffix: string | null;
}

/** The library's pieces `packVocab` reads, beyond its public type. */
interface LibraryInternals {
  model: { vocab: Array<string | undefined>; unk_token?: string | null; end_of_word_suffix?: string | null };
  special_tokens: string[];
  added_tokens: Array<{ content: string }>;
  tokenizer: { decoder?: Record<string, unknown> | null };
}

/** Packs a built tokenizer's vocabulary and decoder (in the thread that built it). */
export function packVocab(tokenizer: Tokenizer): PackedVocab {
  const library = tokenizer as unknown as LibraryInternals;
  const vocab = library.model.vocab;
  // One encode of the whole vocabulary (a hole joins as nothing): 128k encodes take ~10x longer.
  const bytes = new TextEncoder().encode(vocab.join(''));
  const offsets = new Uint32Array(vocab.length + 1);
  for (let id = 0; id < vocab.length; id++)
    offsets[id + 1] = offsets[id]! + Buffer.byteLength(vocab[id] ?? '', 'utf8');
  return {
    bytes,
    offsets,
    isPresent: Uint8Array.from({ length: vocab.length }, (_, id) => (vocab[id] === undefined ? 0 : 1)),
    unkToken: library.model.unk_token ?? null,
    specialTokens: [...library.special_tokens],
    addedContents: library.added_tokens.map((t) => t.content),
    decoder: library.tokenizer.decoder ?? null,
    endOfWordSuffix: library.model.end_of_word_suffix ?? null,
  };
}

const DECODERS: Record<string, new (config: never) => Decoder> = {
  ByteLevel: ByteLevelDecoder,
  WordPiece: WordPieceDecoder,
  Metaspace: MetaspaceDecoder,
  BPEDecoder: BPEDecoder,
  CTC: CTCDecoder,
  Sequence: SequenceDecoder,
  Replace: ReplaceDecoder,
  Fuse: FuseDecoder,
  Strip: StripDecoder,
  ByteFallback: ByteFallbackDecoder,
};

/**
 * Decodes ids as the library's `Tokenizer.decode` does (clean-up off), from a PackedVocab: the
 * same token lookup, special-token filter and decoder classes, so the text is the same text.
 * Token strings are read out of the buffer when first met.
 */
export class VocabDecoder {
  private readonly tokens: Array<string | undefined> = [];
  private readonly special: Set<string>;
  private readonly decoder: Decoder | null;
  private readonly utf8 = new TextDecoder();

  constructor(private readonly packed: PackedVocab) {
    this.special = new Set(packed.specialTokens);
    this.decoder = packed.decoder === null ? null : decoderOf(packed);
  }

  /** Text of `ids`; special tokens are dropped when `isSkippingSpecial`. */
  decode(ids: readonly number[], isSkippingSpecial: boolean): string {
    let tokens = ids.map((id) => this.tokenOf(id) ?? this.packed.unkToken) as string[];
    if (isSkippingSpecial) tokens = tokens.filter((token) => !this.special.has(token));
    if (!this.decoder) return tokens.join(' ');
    let text = this.decoder.decode(tokens);
    const suffix = this.packed.endOfWordSuffix;
    if (suffix) {
      text = text.replaceAll(suffix, ' ');
      if (isSkippingSpecial) text = text.trim();
    }
    return text;
  }

  private tokenOf(id: number): string | undefined {
    const { offsets, isPresent } = this.packed;
    if (!Number.isInteger(id) || id < 0 || id >= isPresent.length || isPresent[id] === 0) return undefined;
    return (this.tokens[id] ??= this.utf8.decode(this.packed.bytes.subarray(offsets[id], offsets[id + 1])));
  }
}

function decoderOf(packed: PackedVocab): Decoder {
  const config = packed.decoder!;
  const Kind = DECODERS[String(config['type'])];
  if (!Kind) throw new Error(`unknown decoder type ${String(config['type'])}`);
  const decoder = new Kind(config as never);
  // As the library's Tokenizer sets them on its top-level decoder (only there).
  decoder.added_tokens = packed.addedContents.map((content) => ({ content })) as Decoder['added_tokens'];
  decoder.end_of_word_suffix = packed.endOfWordSuffix;
  return decoder;
}
