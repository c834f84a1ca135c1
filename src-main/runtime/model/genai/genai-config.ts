// onnxruntime-genai's genai_config.json as its model builder writes it (builders/base.py,
// make_genai_config): the decoder's file and I/O name maps, its geometry, special ids and the
// `search` defaults. Only single-decoder text models are read; a multi-model pipeline (vision,
// speech, embedding parts) is refused with the parts it has named.

import { z } from 'zod';
import type { ModelShape } from '../config';
import { GRAPH_IO, pastName, presentName } from '../graph-io-names';

const PositiveInt = z.number().int().positive();
const TokenIds = z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative())]);

const DecoderSchema = z
  .object({
    filename: z.string().min(1).optional(),
    head_size: PositiveInt,
    hidden_size: PositiveInt,
    num_attention_heads: PositiveInt,
    num_hidden_layers: PositiveInt,
    num_key_value_heads: PositiveInt.optional(),
    inputs: z.record(z.string(), z.string()).optional(),
    outputs: z.record(z.string(), z.string()).optional(),
    pipeline: z.array(z.unknown()).optional(),
  })
  .passthrough();

/** The `search` section: the model's default sampling as its exporter set it. */
const SearchSchema = z
  .object({
    do_sample: z.boolean().optional(),
    temperature: z.number().nonnegative().optional(),
    top_k: z.number().int().nonnegative().optional(),
    top_p: z.number().min(0).max(1).optional(),
    repetition_penalty: z.number().positive().optional(),
    max_length: PositiveInt.optional(),
  })
  .passthrough();

/** genai_config.json, with the fields First Frame reads checked and the rest kept. */
export const GenaiConfigSchema = z
  .object({
    model: z
      .object({
        type: z.string().optional(),
        bos_token_id: TokenIds.nullable().optional(),
        eos_token_id: TokenIds.nullable().optional(),
        pad_token_id: TokenIds.nullable().optional(),
        context_length: PositiveInt,
        vocab_size: PositiveInt,
        decoder: DecoderSchema,
      })
      .passthrough(),
    search: SearchSchema.optional(),
  })
  .passthrough();

/** A parsed genai_config.json. */
export type GenaiConfig = z.infer<typeof GenaiConfigSchema>;

/** Model parts other than the decoder that mark a multi-model pipeline. */
const PIPELINE_PARTS = ['embedding', 'vision', 'speech', 'encoder', 'audio'];

/** The name maps First Frame's decoder contract needs, as the builder writes them. */
const EXPECTED_NAMES: Record<string, string> = {
  input_ids: GRAPH_IO.inputIds,
  attention_mask: GRAPH_IO.attentionMask,
  past_key_names: pastName('%d', 'key'),
  past_value_names: pastName('%d', 'value'),
};
const EXPECTED_OUTPUTS: Record<string, string> = {
  logits: GRAPH_IO.logits,
  present_key_names: presentName('%d', 'key'),
  present_value_names: presentName('%d', 'value'),
};

/**
 * Why a genai model cannot run here (a pipeline of several models, embeddings fed instead of ids,
 * renamed K/V), or null when its decoder fits the contract.
 */
export function unsupportedGenaiReason(config: GenaiConfig): string | null {
  const parts = PIPELINE_PARTS.filter((part) => part in config.model);
  if (config.model.decoder.pipeline) parts.push('decoder pipeline');
  if (parts.length > 0)
    return `is a multi-model pipeline (${parts.join(', ')}): First Frame runs single-decoder text models only`;
  const inputs = config.model.decoder.inputs ?? {};
  if ('inputs_embeds' in inputs && !('input_ids' in inputs))
    return 'its decoder takes inputs_embeds (fed by a separate embedding model), not input_ids: not supported';
  for (const [map, expected] of [
    [inputs, EXPECTED_NAMES],
    [config.model.decoder.outputs ?? {}, EXPECTED_OUTPUTS],
  ] as const)
    for (const [key, name] of Object.entries(expected))
      if (map[key] !== undefined && map[key] !== name)
        return `its decoder names ${key} "${map[key]}"; First Frame feeds and reads "${name}"`;
  return null;
}

/** The decoder's K/V geometry from genai_config.json (head_size is the K/V head size). */
export function genaiShapeOf(config: GenaiConfig): ModelShape {
  const decoder = config.model.decoder;
  return {
    numLayers: decoder.num_hidden_layers,
    numKvHeads: decoder.num_key_value_heads ?? decoder.num_attention_heads,
    headDim: decoder.head_size,
    vocabSize: config.model.vocab_size,
    hiddenSize: decoder.hidden_size,
    maxPositions: config.model.context_length,
  };
}

/** The model's default sampling from `search` (null when the file has none). */
export interface DefaultSampling {
  /** Where the defaults come from, shown beside them (`genai_config.json search`). */
  source: string;
  doSample: boolean | null;
  temperature: number | null;
  topK: number | null;
  topP: number | null;
  repetitionPenalty: number | null;
}

/** `search` as default sampling, or null without one. */
export function genaiSamplingOf(config: GenaiConfig): DefaultSampling | null {
  const search = config.search;
  if (!search) return null;
  return {
    source: 'genai_config.json search',
    doSample: search.do_sample ?? null,
    temperature: search.temperature ?? null,
    topK: search.top_k ?? null,
    topP: search.top_p ?? null,
    repetitionPenalty: search.repetition_penalty ?? null,
  };
}
