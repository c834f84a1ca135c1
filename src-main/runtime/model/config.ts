import { z } from 'zod';

const positiveInt = z.number().int().positive();
const tokenIds = z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative()).min(1)]);

/**
 * The part of a Hugging Face `config.json` the runtime needs to shape past K/V tensors.
 * Unknown fields are kept (passthrough) so real model configs load unchanged.
 */
export const ModelConfigSchema = z
  .object({
    model_type: z.string().min(1),
    vocab_size: positiveInt,
    hidden_size: positiveInt,
    num_hidden_layers: positiveInt,
    num_attention_heads: positiveInt,
    num_key_value_heads: positiveInt.optional(),
    head_dim: positiveInt.optional(),
    max_position_embeddings: positiveInt.optional(),
    bos_token_id: z.number().int().nonnegative().nullable().optional(),
    eos_token_id: tokenIds.nullable().optional(),
    pad_token_id: z.number().int().nonnegative().nullable().optional(),
    torch_dtype: z.string().optional(),
  })
  .passthrough();
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

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

/** Derives the K/V geometry from a validated config; throws with the field's name when inconsistent. */
export function shapeOf(config: ModelConfig): ModelShape {
  const numKvHeads = config.num_key_value_heads ?? config.num_attention_heads;
  const headDim = config.head_dim ?? config.hidden_size / config.num_attention_heads;
  if (!Number.isInteger(headDim)) throw new Error('hidden_size is not a multiple of num_attention_heads');
  if (config.num_attention_heads % numKvHeads !== 0)
    throw new Error('num_attention_heads is not a multiple of num_key_value_heads');
  return {
    numLayers: config.num_hidden_layers,
    numKvHeads,
    headDim,
    vocabSize: config.vocab_size,
    hiddenSize: config.hidden_size,
    maxPositions: config.max_position_embeddings ?? 2048,
  };
}

/** Token ids that end generation, from config.json and generation_config.json. */
export function eosIdsOf(
  ...sources: Array<{ eos_token_id?: number | number[] | null } | undefined>
): number[] {
  const ids = new Set<number>();
  for (const source of sources) {
    const eos = source?.eos_token_id;
    if (typeof eos === 'number') ids.add(eos);
    else if (Array.isArray(eos)) eos.forEach((id) => ids.add(id));
  }
  return [...ids];
}
