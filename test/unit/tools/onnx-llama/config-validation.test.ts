import { describe, expect, it } from 'vitest';
import { LlamaConfigError, validateLlamaConfig } from '../../../../tools/onnx-llama/config';
import { buildLlamaOnnx } from '../../../../tools/onnx-llama/llama-graph';
import { randomLlamaWeights } from '../../../../tools/onnx-llama/random-weights';
import {
  checkWeightsMatchConfig,
  countParameters,
  withHfPrefixes,
} from '../../../../tools/onnx-llama/weights';
import { tinyConfig } from './tiny-model';

function errorOf(work: () => unknown): LlamaConfigError {
  try {
    work();
  } catch (error) {
    if (error instanceof LlamaConfigError) return error;
    throw error;
  }
  throw new Error('expected a LlamaConfigError');
}

describe('config validation', () => {
  it('rejects head_dim × num_attention_heads ≠ hidden_size, naming head_dim and hidden_size', () => {
    const error = errorOf(() => validateLlamaConfig({ ...tinyConfig(), head_dim: 32 }));
    expect(error.field).toBe('head_dim');
    expect(error.message).toMatch(/head_dim.*num_attention_heads.*hidden_size \(64\)/);
  });

  it('rejects a layer count that disagrees with the weights, naming num_hidden_layers', () => {
    const weights = randomLlamaWeights(tinyConfig({ numLayers: 2 }));
    const error = errorOf(() => checkWeightsMatchConfig(tinyConfig({ numLayers: 3 }), weights));
    expect(error.field).toBe('num_hidden_layers');
    expect(error.message).toContain('weights hold 2 layers');
    expect(errorOf(() => buildLlamaOnnx(tinyConfig({ numLayers: 1 }), weights)).field).toBe(
      'num_hidden_layers',
    );
  });

  it('rejects weights whose shape disagrees with a size field, naming that field', () => {
    const weights = randomLlamaWeights(tinyConfig({ intermediateSize: 96 }));
    expect(errorOf(() => checkWeightsMatchConfig(tinyConfig(), weights)).field).toBe('intermediate_size');
    const wideVocab = randomLlamaWeights(tinyConfig({ vocabSize: 400 }));
    expect(errorOf(() => checkWeightsMatchConfig(tinyConfig(), wideVocab)).field).toBe('vocab_size');
  });

  it('rejects kv heads that do not divide heads, non-llama types, rope_scaling and bad sizes', () => {
    expect(errorOf(() => validateLlamaConfig({ ...tinyConfig(), num_key_value_heads: 3 })).field).toBe(
      'num_key_value_heads',
    );
    expect(errorOf(() => validateLlamaConfig({ ...tinyConfig(), model_type: 'mistral' })).field).toBe(
      'model_type',
    );
    expect(
      errorOf(() => validateLlamaConfig({ ...tinyConfig(), rope_scaling: { type: 'linear', factor: 2 } }))
        .field,
    ).toBe('rope_scaling');
    expect(errorOf(() => validateLlamaConfig({ ...tinyConfig(), vocab_size: 0 })).field).toBe('vocab_size');
    expect(errorOf(() => validateLlamaConfig({ ...tinyConfig(), hidden_size: '64' })).field).toBe(
      'hidden_size',
    );
  });

  it('fills HF defaults for missing optional fields', () => {
    const {
      head_dim: _h,
      num_key_value_heads: _k,
      rms_norm_eps: _e,
      rope_theta: _t,
      tie_word_embeddings: _w,
      ...minimal
    } = tinyConfig();
    const config = validateLlamaConfig(minimal);
    expect([
      config.head_dim,
      config.num_key_value_heads,
      config.rms_norm_eps,
      config.rope_theta,
      config.tie_word_embeddings,
    ]).toEqual([16, 4, 1e-5, 10000, true]);
  });

  it('accepts bare PyTorch names once prefixed with model. and counts tied embeddings once', () => {
    const config = tinyConfig();
    const bare = new Map(
      [...randomLlamaWeights(config)].map(([name, t]) => [name.replace(/^model\./, ''), t]),
    );
    expect(() => checkWeightsMatchConfig(config, withHfPrefixes(bare))).not.toThrow();
    expect(countParameters(config)).toBe(
      300 * 64 + 2 * (2 * 64 + 64 * 64 * 2 + 2 * 32 * 64 + 3 * 64 * 128) + 64,
    );
  });
});
