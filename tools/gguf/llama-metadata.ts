// The metadata of a llama-arch GGUF: hyperparameters from config.json and a `gpt2` (byte-level
// BPE) tokenizer from tokenizer.json, its vocabulary padded to the model's vocab_size.

import type { LlamaConfig } from '../onnx-llama/config';
import { llamaDims } from '../onnx-llama/config';
import type { GgufValue } from './gguf-file';
import type { GgufArchitecture, GgufWeightType } from './llama-tensors';

/** llama.cpp's `general.file_type` (LLAMA_FTYPE_MOSTLY_*) for each conversion type. */
const FILE_TYPE: Record<GgufWeightType, number> = { f16: 1, q4_0: 2, q8_0: 7 };

/** llama.cpp token types (LLAMA_TOKEN_TYPE_*). */
const TOKEN_TYPE = { normal: 1, control: 3, unused: 5 } as const;

/** The parts of a Hugging Face tokenizer.json a byte-level BPE vocabulary needs. */
export interface HfTokenizerJson {
  model?: { type?: string; vocab?: Record<string, number>; merges?: Array<string | [string, string]> };
  added_tokens?: Array<{ id: number; content: string; special?: boolean }>;
}

/** Special ids as the model folder states them (null when absent). */
export interface SpecialIds {
  bosTokenId: number | null;
  eosTokenId: number | null;
  padTokenId: number | null;
}

/**
 * tokenizer.ggml.* for a byte-level BPE tokenizer: tokens by id (ids the tokenizer lacks up to
 * `vocabSize` become unused `[PAD<id>]` tokens, so the vocabulary matches the embedding),
 * token types, and merges as "left right".
 */
export function tokenizerMetadata(
  tokenizer: HfTokenizerJson,
  vocabSize: number,
  ids: SpecialIds,
): Array<[string, GgufValue]> {
  if (tokenizer.model?.type !== 'BPE' || !tokenizer.model.vocab)
    throw new Error(
      `tokenizer.json: model.type is ${tokenizer.model?.type ?? 'missing'}, only BPE converts to gpt2`,
    );
  const tokens: Array<string | undefined> = new Array<string | undefined>(vocabSize);
  const types = new Int32Array(vocabSize).fill(TOKEN_TYPE.unused);
  const place = (id: number, content: string, type: number) => {
    if (id >= vocabSize)
      throw new Error(`tokenizer.json: token id ${id} ≥ the model's vocab_size ${vocabSize}`);
    tokens[id] = content;
    types[id] = type;
  };
  for (const [content, id] of Object.entries(tokenizer.model.vocab)) place(id, content, TOKEN_TYPE.normal);
  for (const added of tokenizer.added_tokens ?? [])
    place(added.id, added.content, added.special === false ? TOKEN_TYPE.normal : TOKEN_TYPE.control);
  const merges = (tokenizer.model.merges ?? []).map((merge) =>
    typeof merge === 'string' ? merge : merge.join(' '),
  );
  const metadata: Array<[string, GgufValue]> = [
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'default' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: Array.from(tokens, (t, id) => t ?? `[PAD${id}]`) }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: types }],
    ['tokenizer.ggml.merges', { type: 'strings', value: merges }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
  ];
  const special = (key: string, id: number | null) => {
    if (id !== null) metadata.push([`tokenizer.ggml.${key}`, { type: 'uint32', value: id }]);
  };
  special('bos_token_id', ids.bosTokenId);
  special('eos_token_id', ids.eosTokenId);
  special('padding_token_id', ids.padTokenId);
  return metadata;
}

/** general.* and `{architecture}.*` hyperparameters for `config`. */
export function llamaMetadata(
  config: LlamaConfig,
  name: string,
  type: GgufWeightType,
  arch: GgufArchitecture = 'llama',
): Array<[string, GgufValue]> {
  const d = llamaDims(config);
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
  const f32 = (value: number): GgufValue => ({ type: 'float32', value });
  return [
    ['general.architecture', { type: 'string', value: arch }],
    ['general.name', { type: 'string', value: name }],
    ['general.file_type', u32(FILE_TYPE[type])],
    ['general.quantization_version', u32(2)],
    [`${arch}.context_length`, u32(config.max_position_embeddings)],
    [`${arch}.embedding_length`, u32(d.hiddenSize)],
    [`${arch}.block_count`, u32(d.numLayers)],
    [`${arch}.feed_forward_length`, u32(d.intermediateSize)],
    [`${arch}.attention.head_count`, u32(d.numHeads)],
    [`${arch}.attention.head_count_kv`, u32(d.numKvHeads)],
    [`${arch}.attention.key_length`, u32(d.headDim)],
    [`${arch}.attention.value_length`, u32(d.headDim)],
    [`${arch}.attention.layer_norm_rms_epsilon`, f32(d.rmsNormEps)],
    [`${arch}.rope.freq_base`, f32(d.ropeTheta)],
    [`${arch}.rope.dimension_count`, u32(d.headDim)],
    [`${arch}.vocab_size`, u32(d.vocabSize)],
  ];
}
