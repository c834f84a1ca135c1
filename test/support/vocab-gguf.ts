/**
 * GGUF files that hold a vocabulary and no weights, for comparing First Frame's tokenizer with
 * llama.cpp's (LlamaCppEngine.openVocab): the bundled model's byte-level BPE vocabulary under a
 * chosen pre-tokenizer, with extra tokens; or a SentencePiece one (sentencepiece-gguf.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateLlamaConfig } from '../../tools/onnx-llama/config';
import { writeGguf } from '../../tools/gguf/gguf-file';
import type { GgufValue } from '../../tools/gguf/gguf-file';
import { tokenizerMetadata, llamaMetadata } from '../../tools/gguf/llama-metadata';
import type { HfTokenizerJson } from '../../tools/gguf/llama-metadata';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';
import { sentencePieceMetadata } from './sentencepiece-gguf';
import type { SentencePieceOptions } from './sentencepiece-gguf';

const MODEL_DIR = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);

/** Llama 3's chat markers and ChatML's, as control tokens (llama.cpp's type 3). */
export const CHAT_CONTROLS = [
  '<|begin_of_text|>',
  '<|end_of_text|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<|eot_id|>',
  '<|im_start|>',
  '<|im_end|>',
] as const;

/** A BPE vocabulary file: the bundled tokens, then `controls` and `normals` (byte-level text). */
export interface BpeVocabOptions {
  pre: string;
  controls: readonly string[];
  normals: readonly string[];
  bosToken: string | null;
  eosToken: string | null;
  /** tokenizer.ggml.add_bos_token (absent when undefined: the pre-tokenizer's default). */
  addBosToken?: boolean;
  /** general.name (llama.cpp reads a few models' token rules from it, Phi-3's). */
  name?: string;
}

/** Writes a vocabulary-only gpt2 GGUF; returns its path. */
export function bpeVocabGguf(outPath: string, options: BpeVocabOptions): string {
  const tokenizer = JSON.parse(
    readFileSync(path.join(MODEL_DIR, 'tokenizer.json'), 'utf8'),
  ) as HfTokenizerJson;
  const base = Object.keys(tokenizer.model!.vocab!).length;
  const extras = [...options.controls, ...options.normals];
  const metadata = tokenizerMetadata(tokenizer, base, {
    bosTokenId: null,
    eosTokenId: null,
    padTokenId: null,
  });
  const tokens = [
    ...(metadata.find(([key]) => key === 'tokenizer.ggml.tokens')![1].value as string[]),
    ...extras,
  ];
  const types = Int32Array.from([
    ...(metadata.find(([key]) => key === 'tokenizer.ggml.token_type')![1].value as Int32Array),
    ...options.controls.map(() => 3),
    ...options.normals.map(() => 1),
  ]);
  const idOf = (token: string | null) => (token === null ? -1 : tokens.indexOf(token));
  const replaced: Array<[string, GgufValue]> = [
    ['tokenizer.ggml.pre', { type: 'string', value: options.pre }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: types }],
  ];
  const flags: Array<[string, GgufValue]> = [];
  for (const [key, token] of [
    ['bos_token_id', options.bosToken],
    ['eos_token_id', options.eosToken],
  ] as const)
    if (idOf(token) >= 0) flags.push([`tokenizer.ggml.${key}`, { type: 'uint32', value: idOf(token) }]);
  if (options.addBosToken !== undefined)
    flags.push(['tokenizer.ggml.add_bos_token', { type: 'bool', value: options.addBosToken }]);
  const kept = metadata.filter(
    ([key]) => !replaced.some(([r]) => r === key) && key !== 'tokenizer.ggml.add_bos_token',
  );
  writeGguf(
    outPath,
    [...hyperparameters(options.name ?? `bpe-${options.pre}`), ...kept, ...replaced, ...flags],
    [],
  );
  return outPath;
}

/** Writes a vocabulary-only SentencePiece GGUF; returns its path. */
export function sentencePieceVocabGguf(outPath: string, options: SentencePieceOptions): string {
  writeGguf(outPath, [...hyperparameters('spm'), ...sentencePieceMetadata(options)], []);
  return outPath;
}

/** The bundled model's hyperparameters (llama.cpp reads them even for a vocabulary alone). */
function hyperparameters(name: string): Array<[string, GgufValue]> {
  const config = validateLlamaConfig(JSON.parse(readFileSync(path.join(MODEL_DIR, 'config.json'), 'utf8')));
  return llamaMetadata(config, name, 'f16');
}
