import { describe, expect, it } from 'vitest';
import { eosIdsOfGguf } from '../../../../src-main/runtime/tokenize/gguf-tokenizer';

describe('the ids a GGUF model’s turn ends at', () => {
  it('adds the tokens llama.cpp ends generation at by text to the ids the metadata names', () => {
    // A Phi-3 file names <|endoftext|> as eos; its chat template ends each turn with <|end|>. The
    // llama.cpp the peers install also ends at </s> by text (its list names paddleocr for it).
    const tokens = ['<unk>', '<s>', '</s>', 'hello', '<|endoftext|>', '<|assistant|>', '<|end|>'];
    const meta = new Map<string, string[] | number>([
      ['tokenizer.ggml.tokens', tokens],
      ['tokenizer.ggml.eos_token_id', 4],
    ]);
    expect(eosIdsOfGguf(meta)).toEqual([4, 2, 6]);
    expect(eosIdsOfGguf(new Map([['tokenizer.ggml.tokens', ['a', 'b']]]))).toEqual([]);
  });
});
