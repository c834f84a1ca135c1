import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readGgufSet } from '../../../../../src-main/runtime/model/gguf/gguf-files';
import type { GgufTensor, GgufValue } from '../../../../../tools/gguf/gguf-file';
import { writeGguf } from '../../../../../tools/gguf/gguf-file';

const tensor = (name: string): GgufTensor => ({ name, ne: [4], type: 'f32', data: new Uint8Array(16) });
const META: [string, GgufValue][] = [['general.architecture', { type: 'string', value: 'llama' }]];

describe('a GGUF set whose tensors are named twice', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the one file when a tensor appears twice in it', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-twice-'));
    const file = path.join(dir, 'model.gguf');
    writeGguf(file, META, [tensor('a.weight'), tensor('b.weight'), tensor('a.weight')]);
    expect(() => readGgufSet(file)).toThrow('holds tensor "a.weight" twice: it appears twice in model.gguf');
  });

  it('names both shards when two shards hold the same tensor', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-twice-'));
    const shard = (i: number) => path.join(dir, `model-0000${i}-of-00002.gguf`);
    writeGguf(shard(1), META, [tensor('a.weight')]);
    writeGguf(shard(2), META, [tensor('a.weight')]);
    expect(() => readGgufSet(shard(1))).toThrow(
      'holds tensor "a.weight" twice: in model-00001-of-00002.gguf and in model-00002-of-00002.gguf',
    );
  });
});
