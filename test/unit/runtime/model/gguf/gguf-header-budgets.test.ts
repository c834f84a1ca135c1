import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GGUF_LIMITS, readGgufHeader } from '../../../../../src-main/runtime/model/gguf/gguf-header';
import type { GgufValue } from '../../../../../tools/gguf/gguf-file';
import { writeGguf } from '../../../../../tools/gguf/gguf-file';

// Hostile headers are refused while parsing, by the work they claim (items, bytes), naming the
// number: before anything slow (a tokenizer build) starts on them.

const ARCH: [string, GgufValue] = ['general.architecture', { type: 'string', value: 'llama' }];

describe('a GGUF header over a work budget', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-budget-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses one metadata array over the item limit, naming its count and the limit', () => {
    const file = path.join(dir, 'huge-array.gguf');
    const items = new Int32Array(GGUF_LIMITS.maxArrayItems + 1);
    writeGguf(file, [ARCH, ['junk.array', { type: 'int32s', value: items }]], []);
    expect(() => readGgufHeader(file)).toThrow(
      `metadata "junk.array" claims ${items.length} items, over the limit of ${GGUF_LIMITS.maxArrayItems}; refused`,
    );
  });

  it('refuses arrays that pass one by one but together hold over the limit of all items', () => {
    const file = path.join(dir, 'many-arrays.gguf');
    const numArrays = Math.ceil(GGUF_LIMITS.maxMetadataItems / GGUF_LIMITS.maxArrayItems) + 1;
    const items = new Int32Array(GGUF_LIMITS.maxArrayItems);
    const arrays: [string, GgufValue][] = Array.from({ length: numArrays }, (_, i) => [
      `junk.array${i}`,
      { type: 'int32s', value: items },
    ]);
    writeGguf(file, [ARCH, ...arrays], []);
    expect(() => readGgufHeader(file)).toThrow(
      `metadata arrays hold over ${GGUF_LIMITS.maxMetadataItems} items in all`,
    );
  });

  it('refuses a vocabulary token over the token limit, naming its length', () => {
    const file = path.join(dir, 'long-token.gguf');
    const tokens = ['<unk>', '<s>', 'x'.repeat(100_000)];
    writeGguf(file, [ARCH, ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }]], []);
    expect(() => readGgufHeader(file)).toThrow(
      `a token of "tokenizer.ggml.tokens" claims 100000 bytes, over the limit of ${GGUF_LIMITS.maxTokenBytes}; refused`,
    );
  });

  it('reads a header whose arrays and tokens are inside every limit', () => {
    const file = path.join(dir, 'fine.gguf');
    const tokens = ['<unk>', '<s>', 'x'.repeat(GGUF_LIMITS.maxTokenBytes)];
    writeGguf(file, [ARCH, ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }]], []);
    expect(readGgufHeader(file).metadata.get('tokenizer.ggml.tokens')).toEqual(tokens);
  });
});
