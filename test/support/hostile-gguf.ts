import path from 'node:path';
import { GGUF_LIMITS } from '../../src-main/runtime/model/gguf/gguf-header';
import { writeGguf } from '../../tools/gguf/gguf-file';
import type { GgufValue } from '../../tools/gguf/gguf-file';

/**
 * A GGUF of `numArrays` metadata arrays at the item limit (4 MB each): inside every parse limit,
 * so it is read to the end (slow, and heavy on memory), then refused as no model. Written to `dir`.
 */
export function heavyArraysGguf(dir: string, numArrays: number, name = 'heavy.gguf'): string {
  const file = path.join(dir, name);
  const items = new Int32Array(GGUF_LIMITS.maxArrayItems);
  const arrays: [string, GgufValue][] = Array.from({ length: numArrays }, (_, i) => [
    `junk.array${i}`,
    { type: 'int32s', value: items },
  ]);
  writeGguf(file, [['general.architecture', { type: 'string', value: 'llama' }], ...arrays], []);
  return file;
}
