import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectGguf } from '../../../../src-main/runtime/model/gguf/gguf-model';
import { writeRandomGguf } from '../../../../tools/gguf/random-model';
import { RANDOM_SHAPES } from '../../../../tools/gguf/random-shapes';
import type { RandomShape } from '../../../../tools/gguf/random-shapes';

const dir = mkdtempSync(path.join(tmpdir(), 'ff-random-gguf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real shape narrowed to 1 layer of width 64 (its vocabulary and special ids kept), so it writes in a moment. */
function narrowed(shape: RandomShape): RandomShape {
  const config = { ...shape.config, hidden_size: 64, intermediate_size: 128, num_hidden_layers: 1 };
  return { ...shape, config: { ...config, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 32 } };
}

describe('writeRandomGguf', () => {
  // One shape: reading back a real vocabulary's tokenizer takes seconds.
  it.each(['llama-3.2-1b'] as const)(
    'writes a %s-shaped file First Frame lists: its dims, its whole vocabulary, its chat markers',
    (name) => {
      const shape = narrowed(RANDOM_SHAPES[name]);
      const file = path.join(dir, `${name}.gguf`);
      const numBytes = writeRandomGguf(shape, name, file);
      expect(statSync(file).size).toBe(numBytes);
      const model = inspectGguf(file);
      expect(model.architecture).toBe(shape.architecture);
      expect(model.dims).toMatchObject({
        hiddenSize: 64,
        numLayers: 1,
        vocabSize: shape.config.vocab_size,
        isTiedEmbedding: true,
      });
      expect(model.eosIds).toContain(shape.eosTokenId);
      expect(model.set.tensors.get('token_embd.weight')?.numBytes).toBe(shape.config.vocab_size * 64 * 2);
      expect(model.extras.length > 0).toBe(shape.hasQkvBias);
    },
  );
});
