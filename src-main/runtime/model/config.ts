import { shapeBeyondLimits } from './shape-limits';

/** A Hugging Face `config.json`, kept whole: the runtime reads only the fields below. */
export type ModelConfig = Record<string, unknown> & { model_type?: string; torch_dtype?: string };

/** The model's K/V geometry: what a context page and a past tensor look like. */
export interface ModelShape {
  numLayers: number;
  numKvHeads: number;
  headDim: number;
  vocabSize: number;
  hiddenSize: number;
  /** Positions the model was configured for; prompts are limited below this. */
  maxPositions: number;
}

/** A config.json field that is missing or wrong, named as it is spelled there. */
export class ConfigFieldError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`);
    this.name = 'ConfigFieldError';
  }
}

/** Each field the runtime needs: the names families spell it with (first wins) and what it is for. */
const FIELDS = {
  numLayers: { names: ['num_hidden_layers', 'n_layer', 'num_layers'], purpose: 'the number of K/V layers' },
  numHeads: { names: ['num_attention_heads', 'n_head'], purpose: 'the query heads, to derive head_dim' },
  numKvHeads: { names: ['num_key_value_heads', 'num_kv_heads'], purpose: 'the K/V heads' },
  headDim: { names: ['head_dim'], purpose: 'the K/V head size' },
  hiddenSize: { names: ['hidden_size', 'n_embd', 'd_model'], purpose: 'the hidden size, to derive head_dim' },
  vocabSize: { names: ['vocab_size'], purpose: 'the logits width' },
  maxPositions: {
    names: ['max_position_embeddings', 'n_positions', 'max_sequence_length', 'seq_length'],
    purpose: 'the context length',
  },
} as const;

type FieldKey = keyof typeof FIELDS;

/** A positive integer field (by any of its names), or undefined when absent or null. */
function optionalInt(config: ModelConfig, key: FieldKey): number | undefined {
  for (const name of FIELDS[key].names) {
    const value = config[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
      throw new ConfigFieldError(name, `must be a positive integer, got ${JSON.stringify(value)}`);
    return value;
  }
  return undefined;
}

function requiredInt(config: ModelConfig, key: FieldKey): number {
  const value = optionalInt(config, key);
  if (value === undefined)
    throw new ConfigFieldError(FIELDS[key].names[0], `is missing (${FIELDS[key].purpose})`);
  return value;
}

/**
 * Derives the K/V geometry: layers, K/V heads (default: the query heads, MHA), head dim (given,
 * or hidden size / heads), vocabulary and context length. Throws ConfigFieldError naming the field,
 * also for a value beyond what First Frame can run (shape-limits.ts).
 */
export function shapeOf(config: ModelConfig): ModelShape {
  const numLayers = requiredInt(config, 'numLayers');
  const numHeads = requiredInt(config, 'numHeads');
  const numKvHeads = optionalInt(config, 'numKvHeads') ?? numHeads;
  const hiddenSize = requiredInt(config, 'hiddenSize');
  const givenHeadDim = optionalInt(config, 'headDim');
  const headDim = givenHeadDim ?? hiddenSize / numHeads;
  if (!Number.isInteger(headDim))
    throw new ConfigFieldError(
      'hidden_size',
      `(${hiddenSize}) is not a multiple of num_attention_heads (${numHeads}) and head_dim is not given`,
    );
  if (numHeads % numKvHeads !== 0)
    throw new ConfigFieldError(
      'num_key_value_heads',
      `(${numKvHeads}) does not divide num_attention_heads (${numHeads})`,
    );
  const shape = {
    numLayers,
    numKvHeads,
    headDim,
    vocabSize: requiredInt(config, 'vocabSize'),
    hiddenSize,
    maxPositions: requiredInt(config, 'maxPositions'),
  };
  const beyond = shapeBeyondLimits(
    (
      ['numLayers', 'numHeads', 'numKvHeads', 'headDim', 'hiddenSize', 'vocabSize', 'maxPositions'] as const
    ).map((key) => ({
      name: FIELDS[key].names.find((name) => config[name] != null) ?? FIELDS[key].names[0],
      dimension: key,
      value: key === 'numHeads' ? numHeads : shape[key],
    })),
  );
  if (beyond) throw new ConfigFieldError(beyond.field, beyond.problem);
  return shape;
}

/** Token ids that end generation, from config.json and generation_config.json. */
export function eosIdsOf(...sources: Array<Record<string, unknown> | undefined>): number[] {
  const ids = new Set<number>();
  for (const source of sources) {
    const eos = source?.['eos_token_id'];
    if (typeof eos === 'number' && Number.isInteger(eos) && eos >= 0) ids.add(eos);
    else if (Array.isArray(eos))
      for (const id of eos) if (typeof id === 'number' && Number.isInteger(id) && id >= 0) ids.add(id);
  }
  return [...ids];
}
