import { describe, expect, it } from 'vitest';
import { ConfigFieldError, shapeOf } from '../../../../src-main/runtime/model/config';

/** Trimmed config.json files of the decoder families (the fields the runtime reads, as each spells them). */
const FAMILIES: Record<string, Record<string, unknown>> = {
  llama: {
    num_hidden_layers: 16,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    hidden_size: 2048,
    vocab_size: 128256,
    max_position_embeddings: 131072,
    head_dim: 64,
  },
  mistral: {
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    hidden_size: 4096,
    vocab_size: 32768,
    max_position_embeddings: 32768,
    head_dim: null,
  },
  qwen2: {
    num_hidden_layers: 24,
    num_attention_heads: 14,
    num_key_value_heads: 2,
    hidden_size: 896,
    vocab_size: 151936,
    max_position_embeddings: 32768,
  },
  qwen3: {
    num_hidden_layers: 28,
    num_attention_heads: 16,
    num_key_value_heads: 8,
    hidden_size: 1024,
    head_dim: 128,
    vocab_size: 151936,
    max_position_embeddings: 40960,
  },
  phi3: {
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: 32,
    hidden_size: 3072,
    vocab_size: 32064,
    max_position_embeddings: 4096,
  },
  gemma: {
    num_hidden_layers: 18,
    num_attention_heads: 8,
    num_key_value_heads: 1,
    hidden_size: 2048,
    head_dim: 256,
    vocab_size: 256000,
    max_position_embeddings: 8192,
  },
  gemma2: {
    num_hidden_layers: 26,
    num_attention_heads: 8,
    num_key_value_heads: 4,
    hidden_size: 2304,
    head_dim: 256,
    vocab_size: 256000,
    max_position_embeddings: 8192,
  },
  granite: {
    num_hidden_layers: 40,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    hidden_size: 2048,
    vocab_size: 49155,
    max_position_embeddings: 4096,
  },
  olmo2: {
    num_hidden_layers: 16,
    num_attention_heads: 16,
    num_key_value_heads: 16,
    hidden_size: 2048,
    vocab_size: 100352,
    max_position_embeddings: 4096,
  },
  smollm3: {
    num_hidden_layers: 36,
    num_attention_heads: 16,
    num_key_value_heads: 4,
    hidden_size: 2048,
    vocab_size: 128256,
    max_position_embeddings: 65536,
  },
};

describe('config.json of the common decoder families', () => {
  it('gives layers, K/V heads, head dim (given or derived) and context length for each family', () => {
    const shapes = Object.fromEntries(
      Object.entries(FAMILIES).map(([family, config]) => [
        family,
        shapeOf({ model_type: family, ...config }),
      ]),
    );
    expect(shapes['gemma']).toMatchObject({ numLayers: 18, numKvHeads: 1, headDim: 256, maxPositions: 8192 });
    expect(shapes['qwen3']).toMatchObject({ numKvHeads: 8, headDim: 128 }); // given, not 1024 / 16
    expect(shapes['mistral']).toMatchObject({ headDim: 128 }); // null means derive
    expect(shapes['qwen2']).toMatchObject({ headDim: 64, numKvHeads: 2 });
    expect(shapes['phi3']).toMatchObject({ numKvHeads: 32, headDim: 96 }); // MHA
  });

  it('defaults K/V heads to the query heads (MHA) when the family leaves them out', () => {
    const { num_key_value_heads: _kv, ...config } = FAMILIES['olmo2']!;
    expect(shapeOf(config).numKvHeads).toBe(16);
  });

  it('refuses a dimension beyond what can run at listing, naming the field, instead of failing at first use', () => {
    expect(() => shapeOf({ ...FAMILIES['llama'], max_position_embeddings: 2 ** 53 - 1 })).toThrow(
      new ConfigFieldError(
        'max_position_embeddings',
        'is 9,007,199,254,740,991, more than First Frame can run (at most 1,048,576)',
      ),
    );
    expect(() => shapeOf({ ...FAMILIES['llama'], num_attention_heads: 1_000_000 })).toThrow(
      /^num_attention_heads is 1,000,000, more than First Frame can run/,
    );
    expect(() =>
      shapeOf({ ...FAMILIES['llama'], max_position_embeddings: 1_048_576, head_dim: 512 }),
    ).toThrow(
      /^max_position_embeddings \(1,048,576\) with head_dim 512 needs rotary tables larger than First Frame allocates/,
    );
  });

  it('names the missing or wrong field and what the runtime needs it for', () => {
    const { max_position_embeddings: _m, ...noContext } = FAMILIES['llama']!;
    expect(() => shapeOf(noContext)).toThrow(
      new ConfigFieldError('max_position_embeddings', 'is missing (the context length)'),
    );
    expect(() => shapeOf({ ...FAMILIES['llama'], num_key_value_heads: 5 })).toThrow(
      /^num_key_value_heads \(5\) does not divide num_attention_heads \(32\)/,
    );
    expect(() => shapeOf({ ...FAMILIES['qwen2'], num_attention_heads: 13 })).toThrow(
      /^hidden_size \(896\) is not a multiple of num_attention_heads \(13\)/,
    );
    expect(() => shapeOf({ ...FAMILIES['llama'], num_hidden_layers: '16' })).toThrow(
      /^num_hidden_layers must be a positive integer, got "16"/,
    );
  });
});
