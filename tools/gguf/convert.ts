// A model folder (config.json, tokenizer.json, an onnx-llama ONNX file) → one llama-arch GGUF
// (or qwen2/qwen3-named, with the extra weights given).

import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { validateLlamaConfig } from '../onnx-llama/config';
import { readOnnxLlamaWeights } from '../onnx-llama/read-weights';
import { checkWeightsMatchConfig } from '../onnx-llama/weights';
import type { LlamaWeights } from '../onnx-llama/weights';
import { writeGguf } from './gguf-file';
import type { GgufValue } from './gguf-file';
import { llamaMetadata, tokenizerMetadata, type HfTokenizerJson, type SpecialIds } from './llama-metadata';
import { llamaTensors, type GgufArchitecture, type GgufWeightType } from './llama-tensors';

/** What a conversion wrote and how long its phases took (ms). */
export interface GgufConversion {
  outPath: string;
  numBytes: number;
  timingsMs: { readWeights: number; encode: number; write: number };
}

const firstId = (value: unknown): number | null => {
  const id = Array.isArray(value) ? value[0] : value;
  return typeof id === 'number' ? id : null;
};

/** Special ids from config.json, falling back to generation_config.json. */
function specialIds(modelDir: string, config: Record<string, unknown>): SpecialIds {
  let generation: Record<string, unknown> = {};
  try {
    generation = JSON.parse(readFileSync(join(modelDir, 'generation_config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    // generation_config.json is optional in the HF layout; config.json's ids then stand alone.
  }
  const pick = (key: string) => firstId(config[key]) ?? firstId(generation[key]);
  return {
    bosTokenId: pick('bos_token_id'),
    eosTokenId: pick('eos_token_id'),
    padTokenId: pick('pad_token_id'),
  };
}

/** tokenizer.chat_template from tokenizer_config.json, as llama.cpp's converter writes it (none when absent). */
function chatTemplateMetadata(modelDir: string): Array<[string, GgufValue]> {
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    return []; // tokenizer_config.json is optional; a model without it has no template to carry
  }
  const template = config['chat_template'];
  return typeof template === 'string'
    ? [['tokenizer.chat_template', { type: 'string', value: template }]]
    : [];
}

/**
 * Converts `onnxPath` (default `<modelDir>/onnx/model.onnx`) with the folder's config and
 * tokenizer into a GGUF at `outPath`: matrices in `type`, norms in f32.
 */
export function convertFolderToGguf(spec: {
  modelDir: string;
  type: GgufWeightType;
  outPath: string;
  onnxPath?: string;
  /** The architecture the file names (default llama). */
  architecture?: GgufArchitecture;
  /**
   * Weights written beside the folder's, or in place of one of its (Hugging Face names: a qwen
   * layer's biases or q/k norms; ggml `blk.N.…` names are written as they are).
   */
  extraWeights?: LlamaWeights;
  /** Metadata written after the hyperparameters, or in place of one (a Gemma file's window and soft-caps). */
  extraMetadata?: Array<[string, GgufValue]>;
}): GgufConversion {
  const rawConfig = JSON.parse(readFileSync(join(spec.modelDir, 'config.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const config = validateLlamaConfig(rawConfig);
  const tokenizer = JSON.parse(
    readFileSync(join(spec.modelDir, 'tokenizer.json'), 'utf8'),
  ) as HfTokenizerJson;
  let startMs = performance.now();
  const weights = readOnnxLlamaWeights(spec.onnxPath ?? join(spec.modelDir, 'onnx', 'model.onnx'), config);
  checkWeightsMatchConfig(config, weights);
  for (const [name, tensor] of spec.extraWeights ?? []) weights.set(name, tensor);
  const readWeights = performance.now() - startMs;
  startMs = performance.now();
  const tensors = llamaTensors(config, weights, spec.type, spec.architecture);
  const extraMetadata = new Map(spec.extraMetadata ?? []);
  const metadata = [
    ...llamaMetadata(config, basename(spec.modelDir), spec.type, spec.architecture).filter(
      ([key]) => !extraMetadata.has(key),
    ),
    ...extraMetadata,
    ...tokenizerMetadata(tokenizer, config.vocab_size, specialIds(spec.modelDir, rawConfig)),
    ...chatTemplateMetadata(spec.modelDir),
  ];
  const encode = performance.now() - startMs;
  startMs = performance.now();
  const numBytes = writeGguf(spec.outPath, metadata, tensors);
  return {
    outPath: spec.outPath,
    numBytes,
    timingsMs: { readWeights, encode, write: performance.now() - startMs },
  };
}
