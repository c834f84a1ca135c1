import { describe, expect, it } from 'vitest';
import {
  architectureOf,
  GGUF_ARCHITECTURES,
} from '../../../../../src-main/runtime/model/gguf/gguf-architecture';
import type { GgufMetaValue } from '../../../../../src-main/runtime/model/gguf/gguf-header';
import { tokenizerFilesOfGguf } from '../../../../../src-main/runtime/tokenize/gguf-tokenizer';
import { NotSupportedYet } from '../../../../../src-main/runtime/model/listing-status';

const meta = (entries: Array<[string, GgufMetaValue]>) => new Map(entries);

describe('a valid GGUF of a kind First Frame does not run yet', () => {
  it('is refused as not supported yet, naming the architectures that are (from their one table)', () => {
    const refuse = () => architectureOf(meta([['general.architecture', 'no-such-arch']]));
    expect(refuse).toThrow(NotSupportedYet);
    expect(refuse).toThrow(
      `architecture no-such-arch (supported: ${Object.keys(GGUF_ARCHITECTURES).join(', ')})`,
    );
    expect(architectureOf(meta([['general.architecture', 'llama']]))).toBe('llama');
  });

  it('is refused as not supported yet for a pre-tokenizer the tokenizer has no regexes for', () => {
    const refuse = () =>
      tokenizerFilesOfGguf(
        meta([
          ['tokenizer.ggml.model', 'gpt2'],
          ['tokenizer.ggml.pre', 'no-such-pre'],
          ['tokenizer.ggml.tokens', ['a', 'b']],
          ['tokenizer.ggml.merges', []],
        ]),
      );
    expect(refuse).toThrow(NotSupportedYet);
    expect(refuse).toThrow(/^pre-tokenizer no-such-pre \(supported: default, llama3, /);
  });
});
