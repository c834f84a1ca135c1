// Writes a Hugging Face ONNX model folder: config.json, generation_config.json,
// onnx/model.onnx and (optionally) the tokenizer files copied from another folder.

import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import onnxProto from 'onnx-proto';
import { writeOnnxModel, type WriteOptions } from './onnx-file';
import { validateLlamaConfig, type LlamaConfig } from './config';
import { copyTokenizerFiles, readTokenizerInfo } from './tokenizer-files';
import type { WeightDtype } from './weight-initializers';

/** What writeModelFolder needs. */
export interface ModelFolderSpec {
  outDir: string;
  config: LlamaConfig;
  /** Serialized graph from buildLlamaOnnx. */
  onnxBytes: Uint8Array;
  /** Recorded as torch_dtype; the graph's inputs/outputs are float32 either way. */
  weightDtype: WeightDtype;
  /** Folder holding tokenizer.json + tokenizer_config.json to copy; none when absent. */
  tokenizerFrom?: string;
  /** Where the graph goes, relative to the folder. Default `onnx/model.onnx`. */
  onnxFile?: string;
  /** Split initializers into `<file>_data`, `<file>_data_1`, …; inline when absent. */
  externalData?: WriteOptions;
}

/** One file written, path relative to the folder, size in bytes. */
export interface WrittenFile {
  path: string;
  numBytes: number;
}

/** Special ids: the config's own when set, else the tokenizer's. */
function withSpecialIds(config: LlamaConfig, tokenizerFrom: string | undefined): LlamaConfig {
  if (!tokenizerFrom) return config;
  const tokenizer = readTokenizerInfo(tokenizerFrom);
  if (tokenizer.vocabSize > config.vocab_size) {
    throw new Error(
      `tokenizer in ${tokenizerFrom} has ${tokenizer.vocabSize} ids, more than config.vocab_size ${config.vocab_size}`,
    );
  }
  return {
    ...config,
    bos_token_id: config.bos_token_id ?? tokenizer.bosTokenId,
    eos_token_id: config.eos_token_id ?? tokenizer.eosTokenId,
    pad_token_id: config.pad_token_id ?? tokenizer.padTokenId,
  };
}

/**
 * Writes the folder (creating it) and returns the files with their sizes.
 * A model vocab larger than the tokenizer's is fine (padded vocab); smaller is an error.
 */
export function writeModelFolder(spec: ModelFolderSpec): WrittenFile[] {
  const config = withSpecialIds(validateLlamaConfig(spec.config), spec.tokenizerFrom);
  const onnxFile = spec.onnxFile ?? join('onnx', 'model.onnx');
  mkdirSync(dirname(join(spec.outDir, onnxFile)), { recursive: true });
  const fullConfig = {
    architectures: ['LlamaForCausalLM'],
    ...config,
    torch_dtype: spec.weightDtype,
    'transformers.js_config': { dtype: 'fp32' },
  };
  const generationConfig = {
    bos_token_id: config.bos_token_id ?? null,
    eos_token_id: config.eos_token_id ?? null,
    pad_token_id: config.pad_token_id ?? null,
  };
  writeFileSync(join(spec.outDir, 'config.json'), `${JSON.stringify(fullConfig, null, 2)}\n`);
  writeFileSync(
    join(spec.outDir, 'generation_config.json'),
    `${JSON.stringify(generationConfig, null, 2)}\n`,
  );
  const written = ['config.json', 'generation_config.json'];
  if (spec.externalData) {
    const model = onnxProto.onnx.ModelProto.decode(spec.onnxBytes);
    const files = writeOnnxModel(join(spec.outDir, onnxFile), model, spec.externalData);
    written.push(...files.map((file) => relative(spec.outDir, file)));
  } else {
    writeFileSync(join(spec.outDir, onnxFile), spec.onnxBytes);
    written.push(onnxFile);
  }
  if (spec.tokenizerFrom) written.push(...copyTokenizerFiles(spec.tokenizerFrom, spec.outDir));
  return written.map((path) => ({ path, numBytes: statSync(join(spec.outDir, path)).size }));
}
