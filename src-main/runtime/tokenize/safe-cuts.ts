/**
 * Where text can be cut so that encoding the parts separately gives the same ids as encoding
 * it whole. Hugging Face pre-tokenizers that split at whitespace (GPT-2's and Llama 3's regexes,
 * Split, Whitespace, Metaspace) always start a new pre-token at a single space that follows a
 * non-space and precedes one: no pre-token pattern runs across it, none looks behind it, and BPE
 * never merges across pre-tokens. A normalizer could change that (it sees the whole text), so a
 * tokenizer with one is never cut.
 */

/** Pre-tokenizers that only split (and map bytes) without seeing beyond their pre-token. */
const SPLITTING_KINDS = new Set([
  'Split',
  'ByteLevel',
  'Whitespace',
  'WhitespaceSplit',
  'BertPreTokenizer',
  'Metaspace',
  'Punctuation',
  'Digits',
]);

interface PreTokenizerJson {
  type?: unknown;
  pretokenizers?: unknown;
  use_regex?: unknown;
  split?: unknown;
}

/** True when tokenizer.json's pipeline keeps whitespace cuts exact (see the file comment). */
export function canCutAtSpaces(tokenizerJson: Record<string, unknown>): boolean {
  if (tokenizerJson['normalizer'] !== null && tokenizerJson['normalizer'] !== undefined) return false;
  const pre = tokenizerJson['pre_tokenizer'] as PreTokenizerJson | null | undefined;
  if (!pre) return false;
  const steps = (pre.type === 'Sequence' ? pre.pretokenizers : [pre]) as PreTokenizerJson[];
  if (!Array.isArray(steps) || !steps.every((s) => SPLITTING_KINDS.has(String(s?.type)))) return false;
  return steps.some(
    (s) =>
      s.type === 'Split' ||
      s.type === 'Whitespace' ||
      s.type === 'WhitespaceSplit' ||
      s.type === 'BertPreTokenizer' ||
      (s.type === 'ByteLevel' && s.use_regex !== false) ||
      (s.type === 'Metaspace' && s.split !== false),
  );
}

const isSpace = (code: number): boolean => /\s/.test(String.fromCharCode(code));

/**
 * `text` in chunks of at least `minChars` characters (the last may be shorter), each cut at a
 * single space between two non-spaces (the space starts the next chunk). The cuts depend only on
 * the text up to one character past them, so two texts that share a prefix share every chunk
 * that ends well inside it: a history re-sent with a new turn hits all its earlier chunks.
 */
export function chunkAtSpaces(text: string, minChars: number): string[] {
  const chunks: string[] = [];
  let start = 0;
  let at = start + minChars;
  while (at < text.length - 1) {
    if (
      text.charCodeAt(at) === 32 &&
      !isSpace(text.charCodeAt(at - 1)) &&
      !isSpace(text.charCodeAt(at + 1))
    ) {
      chunks.push(text.slice(start, at));
      start = at;
      at = start + minChars;
    } else at++;
  }
  chunks.push(text.slice(start));
  return chunks;
}
