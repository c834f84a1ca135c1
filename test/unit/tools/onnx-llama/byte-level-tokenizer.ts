// Writes a minimal byte-level BPE tokenizer folder (256 byte tokens, no merges,
// one special token) for tests that need tokenizer files.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** GPT-2's byte → printable character map used by ByteLevel tokenizers. */
function byteAlphabet(): string[] {
  const printable = new Set<number>();
  for (const [from, to] of [
    [33, 126],
    [161, 172],
    [174, 255],
  ] as const)
    for (let b = from; b <= to; b++) printable.add(b);
  let extra = 0;
  return Array.from({ length: 256 }, (_, byte) =>
    String.fromCharCode(printable.has(byte) ? byte : 256 + extra++),
  );
}

/** Writes tokenizer.json + tokenizer_config.json (ids 0..255 bytes, 256 = <|endoftext|>) into `dir`. */
export function writeByteLevelTokenizer(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const vocab = Object.fromEntries(byteAlphabet().map((char, id) => [char, id]));
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      {
        id: 256,
        content: '<|endoftext|>',
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: null,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  };
  const tokenizerConfig = {
    bos_token: '<|endoftext|>',
    eos_token: '<|endoftext|>',
    pad_token: null,
    tokenizer_class: 'PreTrainedTokenizerFast',
  };
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
}
