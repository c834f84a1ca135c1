// The tokenizer a GGUF carries in its metadata (tokenizer.ggml.*), rebuilt as the tokenizer.json
// First Frame's tokenizer loads, so that text becomes the ids llama.cpp makes of it:
// - `gpt2`: byte-level BPE with the file's merges, split first by the regexes llama.cpp uses for
//   the pre-tokenizer `tokenizer.ggml.pre` names (llama-vocab.cpp's, in its adapted spelling);
// - `llama`: SentencePiece BPE, its merges derived from the token scores (the pair whose merged
//   token scores highest merges first, as llama.cpp's SPM tokenizer does), byte fallback, "▁" for
//   spaces and a leading one unless `add_space_prefix` is false.
// Control tokens (type 3) become special added tokens, user-defined ones (type 4) plain added tokens.

import { NotSupportedYet } from '../model/listing-status';
import type { TokenizerFiles } from './tokenizer';
import type { GgufMetaValue } from '../model/gguf/gguf-header';

/** A tokenizer the metadata does not describe in a way First Frame can rebuild, with the reason. */
export class GgufTokenizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GgufTokenizerError';
  }
}

const GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
const LLAMA3 =
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2 =
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN35 =
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// Mistral's Tekken: llama.cpp's adapted spelling, where a letter that is not a-z counts as upper
// case and one that is not A-Z as lower case (non-ASCII letters are both), as its regex engine reads it.
const TEKKEN =
  '[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+';
const DEFAULT = ['[\\p{P}\\$\\+<=>\\^~\\|]+', GPT2, '\\p{N}+', '[0-9][0-9][0-9]'];

/**
 * How llama.cpp reads a pre-tokenizer name (tokenizer.ggml.pre): the regexes it splits with, in
 * order; whether a pre-token that is itself a vocabulary token is kept whole (its ignore_merges);
 * whether BOS is added when the file does not say (its add_bos default; add_bos_token overrides).
 */
interface PreTokenizer {
  regexes: string[];
  isIgnoringMerges: boolean;
  addsBos: boolean;
}

const plain = (regexes: string[]): PreTokenizer => ({ regexes, isIgnoringMerges: false, addsBos: false });
const LLAMA3_PRE: PreTokenizer = { regexes: [LLAMA3], isIgnoringMerges: true, addsBos: true };

/** Pre-tokenizer names → how llama.cpp (llama-vocab.cpp) tokenizes with them. */
const PRE_TOKENIZERS: Record<string, PreTokenizer> = {
  default: plain(DEFAULT),
  llama3: LLAMA3_PRE,
  'llama-v3': LLAMA3_PRE,
  'llama-bpe': LLAMA3_PRE,
  falcon3: LLAMA3_PRE,
  pixtral: LLAMA3_PRE,
  tekken: { regexes: [TEKKEN], isIgnoringMerges: true, addsBos: true },
  dbrx: plain([LLAMA3]),
  'smaug-bpe': plain([LLAMA3]),
  'chatglm-bpe': plain([LLAMA3]),
  glm4: plain([LLAMA3]),
  qwen2: plain([QWEN2]),
  'deepseek-r1-qwen': plain([QWEN2]),
  stablelm2: plain([QWEN2]),
  qwen35: plain([QWEN35]),
  'gpt-2': plain([GPT2]),
  'phi-2': plain([GPT2]),
  olmo: plain([GPT2]),
  mpt: plain([GPT2]),
  'roberta-bpe': plain([GPT2]),
  starcoder: plain(['\\p{N}', GPT2]),
  refact: plain(['\\p{N}', GPT2]),
  'command-r': plain(['\\p{N}', GPT2]),
  smollm: plain(['\\p{N}', GPT2]),
  exaone: plain(['\\p{N}', GPT2]),
};

/**
 * Token texts llama.cpp ends generation at whatever the metadata names (llama-vocab.cpp's
 * special_eog_ids: Phi-3's files name `<|endoftext|>` as eos, yet a turn ends at `<|end|>`); it
 * also makes them control tokens whatever type the file gives them, so text splits there too.
 */
const END_OF_GENERATION_TEXTS = new Set([
  '<|eot_id|>',
  '<|im_end|>',
  '<|end|>',
  '<|return|>',
  '<|call|>',
  '<|flush|>',
  '<|calls|>',
  '<end_of_turn>',
  '<|endoftext|>',
  '</s>',
  '<|eom_id|>',
  '<EOT>',
  '_<EOT>',
  '[EOT]',
  '[EOS]',
  '<|end_of_text|>',
  '<end_of_utterance>',
  '<eos>',
  '<turn|>',
  '<|tool_response>',
  '<｜end▁of▁sentence｜>',
]);

/**
 * llama.cpp takes the whitespace after every special token of a file named Phi-3 (general.name),
 * so its chat template's "<|end|>\n" reads as "<|end|>"; these keep it.
 */
const PHI3_KEEPS_SPACE = new Set(['<unk>', '<s>', '<|endoftext|>']);

/** llama.cpp token types (LLAMA_TOKEN_TYPE_*). */
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const USER_DEFINED = 4;

interface Vocabulary {
  tokens: string[];
  types: number[];
}

/** Tokenizer files (tokenizer.json and tokenizer_config.json as objects) from GGUF metadata. */
export function tokenizerFilesOfGguf(meta: ReadonlyMap<string, GgufMetaValue>): TokenizerFiles {
  const model = meta.get('tokenizer.ggml.model');
  const tokens = meta.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens) || tokens.length === 0 || typeof tokens[0] !== 'string')
    throw new GgufTokenizerError('has no tokenizer (tokenizer.ggml.tokens is missing)');
  const rawTypes = meta.get('tokenizer.ggml.token_type');
  const vocab: Vocabulary = {
    tokens: tokens as string[],
    types: (tokens as string[]).map((token, id) => {
      const type = Array.isArray(rawTypes) ? (rawTypes[id] as number) : NORMAL;
      return END_OF_GENERATION_TEXTS.has(token) && type !== USER_DEFINED ? CONTROL : type;
    }),
  };
  let tokenizerJson: Record<string, unknown>;
  if (model === 'gpt2') tokenizerJson = gpt2Tokenizer(meta, vocab);
  else if (model === 'llama') tokenizerJson = sentencePieceTokenizer(meta, vocab);
  else
    throw new GgufTokenizerError(
      `has a tokenizer of kind "${String(model)}" (tokenizer.ggml.model); First Frame rebuilds gpt2 (BPE) and llama (SentencePiece) tokenizers`,
    );
  return { tokenizerJson, tokenizerConfig: tokenizerConfigOf(meta, vocab) };
}

/**
 * The tokens matched in text before the model splits it, as llama.cpp does: control, user-defined
 * and unknown ones (so "<unk>" written in a prompt is the unknown token, as llama.cpp makes it).
 * All are matched in the text as written (llama.cpp partitions before it escapes spaces); control
 * and unknown ones are special, which message text never becomes (chat-literals.ts).
 */
function addedTokens(
  meta: ReadonlyMap<string, GgufMetaValue>,
  vocab: Vocabulary,
): Array<Record<string, unknown>> {
  const added: Array<Record<string, unknown>> = [];
  const isPhi3 = /phi-?3/.test(String(meta.get('general.name') ?? '').toLowerCase());
  vocab.types.forEach((type, id) => {
    if (type !== CONTROL && type !== USER_DEFINED && type !== UNKNOWN) return;
    added.push({
      id,
      content: vocab.tokens[id],
      single_word: false,
      lstrip: false,
      rstrip: isPhi3 && !PHI3_KEEPS_SPACE.has(vocab.tokens[id]!),
      normalized: false,
      special: type !== USER_DEFINED,
    });
  });
  return added;
}

function gpt2Tokenizer(meta: ReadonlyMap<string, GgufMetaValue>, vocab: Vocabulary): Record<string, unknown> {
  const preTokenizer = preTokenizerOf(meta);
  if (!preTokenizer)
    throw new NotSupportedYet(
      `pre-tokenizer ${String(meta.get('tokenizer.ggml.pre'))}`,
      Object.keys(PRE_TOKENIZERS),
    );
  const merges = meta.get('tokenizer.ggml.merges');
  if (!Array.isArray(merges))
    throw new GgufTokenizerError('is a gpt2 tokenizer without tokenizer.ggml.merges');
  const ids: Record<string, number> = {};
  vocab.tokens.forEach((token, id) => {
    if (!(token in ids)) ids[token] = id;
  });
  return {
    version: '1.0',
    added_tokens: addedTokens(meta, vocab),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        ...preTokenizer.regexes.map((regex) => ({
          type: 'Split',
          pattern: { Regex: regex },
          behavior: 'Isolated',
          invert: false,
        })),
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: preTokenizer.isIgnoringMerges,
      vocab: ids,
      merges: merges as string[],
    },
  };
}

function sentencePieceTokenizer(
  meta: ReadonlyMap<string, GgufMetaValue>,
  vocab: Vocabulary,
): Record<string, unknown> {
  const scores = meta.get('tokenizer.ggml.scores');
  if (!Array.isArray(scores) || scores.length !== vocab.tokens.length)
    throw new GgufTokenizerError(
      'is a SentencePiece tokenizer without one score per token (tokenizer.ggml.scores)',
    );
  const ids: Record<string, number> = {};
  vocab.tokens.forEach((token, id) => {
    if (!(token in ids)) ids[token] = id;
  });
  const unkId = meta.get('tokenizer.ggml.unknown_token_id');
  const spm = mergesFromScores(vocab.tokens, scores as number[], ids);
  const addSpacePrefix = meta.get('tokenizer.ggml.add_space_prefix') !== false;
  return {
    version: '1.0',
    added_tokens: addedTokens(meta, vocab),
    normalizer: {
      type: 'Sequence',
      normalizers: [
        ...(addSpacePrefix ? [{ type: 'Prepend', prepend: '▁' }] : []),
        { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      ],
    },
    pre_tokenizer: null,
    post_processor: null,
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        ...(addSpacePrefix ? [{ type: 'Strip', content: ' ', start: 1, stop: 0 }] : []),
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: typeof unkId === 'number' ? (vocab.tokens[unkId] ?? null) : null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab: ids,
      merges: spm.merges,
      // Read by TextTokenizer (tiedMergeRanks): Hugging Face's format has no field for it.
      merge_ranks: spm.ranks,
    },
  };
}

/**
 * SentencePiece merges from token scores: every split of a token into two symbols is a merge,
 * ranked by the merged token's score (highest first), so BPE merges what SPM would. A symbol is a
 * token or a single character (llama.cpp starts from characters, tokens or not, and byte-falls
 * back whatever stays unmerged). `ranks` gives merges of equal score the same rank, so that BPE,
 * like llama.cpp, takes the leftmost of them first (the list's order alone would rank them by id).
 */
function mergesFromScores(
  tokens: string[],
  scores: number[],
  ids: Record<string, number>,
): { merges: string[][]; ranks: number[] } {
  // A Map and cuts by UTF-16 index: a Gemma vocabulary (256k tokens) has a million merges or so.
  const known = new Map(Object.entries(ids));
  const isSymbol = (text: string) =>
    known.has(text) || text.length === 1 || (text.length === 2 && isHighSurrogate(text, 0));
  const merges: Array<{ left: string; right: string; score: number; id: number }> = [];
  tokens.forEach((token, id) => {
    for (let cut = 1; cut < token.length; cut++) {
      if (isHighSurrogate(token, cut - 1)) continue; // never inside a surrogate pair
      const left = token.slice(0, cut);
      const right = token.slice(cut);
      if (isSymbol(left) && isSymbol(right)) merges.push({ left, right, score: scores[id]!, id });
    }
  });
  merges.sort((a, b) => b.score - a.score || a.id - b.id);
  const ranks: number[] = [];
  merges.forEach((m, i) => ranks.push(i > 0 && merges[i - 1]!.score === m.score ? ranks[i - 1]! : i));
  return { merges: merges.map((m) => [m.left, m.right]), ranks };
}

function isHighSurrogate(text: string, at: number): boolean {
  const unit = text.charCodeAt(at);
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** How llama.cpp reads the file's pre-tokenizer name ("default" when it names none), or null. */
function preTokenizerOf(meta: ReadonlyMap<string, GgufMetaValue>): PreTokenizer | null {
  return PRE_TOKENIZERS[String(meta.get('tokenizer.ggml.pre') ?? 'default')] ?? null;
}

/**
 * tokenizer_config.json's fields First Frame reads: bos/eos text, whether every prompt gets them,
 * and the chat template. As llama.cpp reads them: BOS/EOS ids default to 1/2 for SentencePiece and
 * 11 for BPE; add_bos defaults to true for SentencePiece and for the pre-tokenizers that ask for it
 * (Llama 3's, Tekken), add_eos to false; add_bos_token/add_eos_token in the file override both.
 */
function tokenizerConfigOf(
  meta: ReadonlyMap<string, GgufMetaValue>,
  vocab: Vocabulary,
): Record<string, unknown> {
  const isSentencePiece = meta.get('tokenizer.ggml.model') === 'llama';
  const tokenOf = (key: string, fallbackId: number | null) => {
    const stated = meta.get(`tokenizer.ggml.${key}`);
    const id = typeof stated === 'number' && stated < vocab.tokens.length ? stated : fallbackId;
    return id === null ? null : (vocab.tokens[id] ?? null);
  };
  const flag = (key: string, fallback: boolean) => {
    const stated = meta.get(`tokenizer.ggml.${key}`);
    return typeof stated === 'boolean' ? stated : fallback;
  };
  const isGlm = ['chatglm-bpe', 'glm4'].includes(String(meta.get('tokenizer.ggml.pre')));
  const template = meta.get('tokenizer.chat_template');
  return {
    bos_token: tokenOf('bos_token_id', isSentencePiece ? 1 : isGlm ? null : 11),
    eos_token: tokenOf('eos_token_id', isSentencePiece ? 2 : 11),
    add_bos_token: flag('add_bos_token', isSentencePiece || (preTokenizerOf(meta)?.addsBos ?? false)),
    add_eos_token: flag('add_eos_token', false),
    ...(typeof template === 'string' ? { chat_template: template } : {}),
  };
}

/**
 * Ids that end a turn: eos, end-of-turn (eot) and end-of-message (eom) when the file names them,
 * and every token whose text llama.cpp ends generation at.
 */
export function eosIdsOfGguf(meta: ReadonlyMap<string, GgufMetaValue>): number[] {
  const ids = ['eos_token_id', 'eot_token_id', 'eom_token_id']
    .map((key) => meta.get(`tokenizer.ggml.${key}`))
    .filter((id): id is number => typeof id === 'number' && Number.isInteger(id) && id >= 0);
  const tokens = meta.get('tokenizer.ggml.tokens');
  if (Array.isArray(tokens))
    tokens.forEach((text, id) => {
      if (typeof text === 'string' && END_OF_GENERATION_TEXTS.has(text)) ids.push(id);
    });
  return [...new Set(ids)];
}
