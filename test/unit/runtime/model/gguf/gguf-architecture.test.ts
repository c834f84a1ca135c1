import { describe, expect, it } from 'vitest';
import { dimsOf } from '../../../../../src-main/runtime/model/gguf/gguf-architecture';
import type { GgufSetTensor } from '../../../../../src-main/runtime/model/gguf/gguf-files';
import type { GgufMetaValue } from '../../../../../src-main/runtime/model/gguf/gguf-header';

/** A small llama's metadata, with `changes` applied. */
function metadata(changes: Record<string, number>): Map<string, GgufMetaValue> {
  return new Map(
    Object.entries({
      'llama.embedding_length': 256,
      'llama.attention.head_count': 8,
      'llama.attention.head_count_kv': 4,
      'llama.block_count': 2,
      'llama.feed_forward_length': 704,
      'llama.context_length': 2048,
      ...changes,
    }),
  );
}

const TENSORS = new Map([
  [
    'token_embd.weight',
    { name: 'token_embd.weight', dims: [256, 4096], file: 'x.gguf' } as unknown as GgufSetTensor,
  ],
]);

describe('a GGUF whose metadata claims more than can run', () => {
  it.each([
    [
      'llama.context_length',
      2 ** 53 - 1,
      'is 9,007,199,254,740,991, more than First Frame can run (at most 1,048,576)',
    ],
    [
      'llama.attention.head_count_kv',
      4_000_000,
      'is 4,000,000, more than First Frame can run (at most 1,024)',
    ],
    [
      'llama.feed_forward_length',
      2 ** 40,
      'is 1,099,511,627,776, more than First Frame can run (at most 262,144)',
    ],
  ])('is refused at listing, naming %s', (key, value, problem) => {
    expect(() => dimsOf('llama', metadata({ [key]: value }), TENSORS)).toThrow(`${key} ${problem}`);
  });
});
