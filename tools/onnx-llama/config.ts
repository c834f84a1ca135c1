// The Hugging Face Llama config.json shape, its validation (errors name the
// field), and the derived dimensions the graph builder works with.

/** HF `config.json` for a Llama model (snake_case, as written to disk). */
export interface LlamaConfig {
  model_type: 'llama';
  architectures?: string[];
  vocab_size: number;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  /** Per-head width; must equal hidden_size / num_attention_heads here. */
  head_dim: number;
  max_position_embeddings: number;
  rms_norm_eps: number;
  rope_theta: number;
  tie_word_embeddings: boolean;
  hidden_act?: 'silu';
  bos_token_id?: number | null;
  eos_token_id?: number | number[] | null;
  pad_token_id?: number | null;
  torch_dtype?: string;
  /** Not supported: must be absent or null (plain RoPE only). */
  rope_scaling?: null;
  attention_bias?: false;
  mlp_bias?: false;
}

/** Dimensions of a validated config, named for code (not for JSON). */
export interface LlamaDims {
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  intermediateSize: number;
  vocabSize: number;
  rmsNormEps: number;
  ropeTheta: number;
  isTiedEmbedding: boolean;
}

/** A config field that is missing, malformed or inconsistent; `field` is the JSON key. */
export class LlamaConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`config.${field}: ${message}`);
    this.name = 'LlamaConfigError';
  }
}

const POSITIVE_INT_FIELDS = [
  'vocab_size',
  'hidden_size',
  'intermediate_size',
  'num_hidden_layers',
  'num_attention_heads',
  'max_position_embeddings',
] as const;

function requirePositiveInt(raw: Record<string, unknown>, field: string): number {
  const value = raw[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new LlamaConfigError(field, `must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function optionalNumber(raw: Record<string, unknown>, field: string, fallback: number): number {
  const value = raw[field] ?? fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LlamaConfigError(field, `must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function rejectUnsupported(raw: Record<string, unknown>): void {
  if (raw.model_type !== 'llama')
    throw new LlamaConfigError('model_type', `must be "llama", got ${JSON.stringify(raw.model_type)}`);
  if (raw.rope_scaling != null)
    throw new LlamaConfigError('rope_scaling', 'is not supported (plain RoPE only); must be null');
  if (raw.attention_bias === true)
    throw new LlamaConfigError('attention_bias', 'is not supported (no biases)');
  if (raw.mlp_bias === true) throw new LlamaConfigError('mlp_bias', 'is not supported (no biases)');
  if (raw.hidden_act !== undefined && raw.hidden_act !== 'silu') {
    throw new LlamaConfigError('hidden_act', `must be "silu", got ${JSON.stringify(raw.hidden_act)}`);
  }
}

function checkHeads(config: LlamaConfig): void {
  const { num_attention_heads: numHeads, num_key_value_heads: numKvHeads, head_dim: headDim } = config;
  if (numHeads % numKvHeads !== 0) {
    throw new LlamaConfigError(
      'num_key_value_heads',
      `${numKvHeads} must divide num_attention_heads (${numHeads})`,
    );
  }
  if (headDim % 2 !== 0) throw new LlamaConfigError('head_dim', `must be even for RoPE, got ${headDim}`);
  if (headDim * numHeads !== config.hidden_size) {
    throw new LlamaConfigError(
      'head_dim',
      `head_dim (${headDim}) × num_attention_heads (${numHeads}) = ${headDim * numHeads} must equal hidden_size (${config.hidden_size})`,
    );
  }
}

/**
 * Validates a parsed config.json and fills HF defaults (num_key_value_heads =
 * heads, head_dim = hidden/heads, eps 1e-5, theta 10000, tied = true).
 * Throws LlamaConfigError naming the offending field.
 */
export function validateLlamaConfig(json: unknown): LlamaConfig {
  if (typeof json !== 'object' || json === null)
    throw new LlamaConfigError('(root)', 'must be a JSON object');
  const raw = json as Record<string, unknown>;
  rejectUnsupported(raw);
  for (const field of POSITIVE_INT_FIELDS) requirePositiveInt(raw, field);
  if (raw.tie_word_embeddings !== undefined && typeof raw.tie_word_embeddings !== 'boolean') {
    throw new LlamaConfigError('tie_word_embeddings', 'must be a boolean');
  }
  const numHeads = raw.num_attention_heads as number;
  const hiddenSize = raw.hidden_size as number;
  const config: LlamaConfig = {
    ...(raw as Partial<LlamaConfig>),
    model_type: 'llama',
    vocab_size: raw.vocab_size as number,
    hidden_size: hiddenSize,
    intermediate_size: raw.intermediate_size as number,
    num_hidden_layers: raw.num_hidden_layers as number,
    num_attention_heads: numHeads,
    num_key_value_heads:
      raw.num_key_value_heads === undefined ? numHeads : requirePositiveInt(raw, 'num_key_value_heads'),
    head_dim:
      raw.head_dim === undefined ? Math.floor(hiddenSize / numHeads) : requirePositiveInt(raw, 'head_dim'),
    max_position_embeddings: raw.max_position_embeddings as number,
    rms_norm_eps: optionalNumber(raw, 'rms_norm_eps', 1e-5),
    rope_theta: optionalNumber(raw, 'rope_theta', 10000),
    tie_word_embeddings: raw.tie_word_embeddings === undefined ? true : raw.tie_word_embeddings === true,
  };
  checkHeads(config);
  return config;
}

/** The code-facing dimensions of a validated config. */
export function llamaDims(config: LlamaConfig): LlamaDims {
  return {
    numLayers: config.num_hidden_layers,
    hiddenSize: config.hidden_size,
    numHeads: config.num_attention_heads,
    numKvHeads: config.num_key_value_heads,
    headDim: config.head_dim,
    intermediateSize: config.intermediate_size,
    vocabSize: config.vocab_size,
    rmsNormEps: config.rms_norm_eps,
    ropeTheta: config.rope_theta,
    isTiedEmbedding: config.tie_word_embeddings,
  };
}

/** Fields a caller sets to describe a new model; the rest get HF defaults. */
export interface LlamaShape {
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  intermediateSize: number;
  vocabSize: number;
  maxPositions: number;
  rmsNormEps?: number;
  ropeTheta?: number;
  isTiedEmbedding?: boolean;
}

/**
 * A seconds-fast shape for smoke tests and layout models: 2 layers, 4 query heads over 2 K/V
 * heads (GQA), hidden 64, a 4096-token vocabulary, 512 positions.
 */
export const TINY_SHAPE: LlamaShape = {
  numLayers: 2,
  hiddenSize: 64,
  numHeads: 4,
  numKvHeads: 2,
  intermediateSize: 128,
  vocabSize: 4096,
  maxPositions: 512,
};

/** Builds and validates a full HF config for a model shape (no special ids; fp32). */
export function makeLlamaConfig(shape: LlamaShape): LlamaConfig {
  return validateLlamaConfig({
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    vocab_size: shape.vocabSize,
    hidden_size: shape.hiddenSize,
    intermediate_size: shape.intermediateSize,
    num_hidden_layers: shape.numLayers,
    num_attention_heads: shape.numHeads,
    num_key_value_heads: shape.numKvHeads,
    head_dim: Math.floor(shape.hiddenSize / shape.numHeads),
    max_position_embeddings: shape.maxPositions,
    rms_norm_eps: shape.rmsNormEps ?? 1e-5,
    rope_theta: shape.ropeTheta ?? 10000,
    tie_word_embeddings: shape.isTiedEmbedding ?? true,
    hidden_act: 'silu',
    attention_bias: false,
    mlp_bias: false,
    rope_scaling: null,
    torch_dtype: 'float32',
  });
}
