// A GGUF model converted once into a model folder First Frame loads like any other: config.json,
// tokenizer.json and tokenizer_config.json rebuilt from the file's metadata, and the fused decoder
// graph (onnx/model.onnx) with its weights in onnx/model.onnx.data, written one layer at a time.
// The folder is written under a temporary name and renamed into place whole, so a folder under
// its final name is always complete; the GGUF itself is only read.

import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeFusedDecoderFiles } from '../fused-graph/write-fused-decoder';
import { inspectGguf } from './gguf-model';
import type { GgufModel } from './gguf-model';
import { ggufWeightSource } from './gguf-weight-set';
import type { ConversionProgress } from './gguf-weight-set';
import { storageLabelOf } from './storage-plan';

/** The converted folder's graph and data files, relative to it. */
export const CONVERTED_FILES = {
  graph: 'onnx/model.onnx',
  data: 'onnx/model.onnx.data',
  record: 'conversion.json',
} as const;

/** What a finished conversion records beside its files (conversion.json). */
export interface ConversionRecord {
  /** The GGUF's file names (shards in order) and its identity (sizes, mtimes, header digests). */
  source: string[];
  /** The converted file's absolute path (its first shard's): the sweep removes the folder once it is gone. */
  sourcePath: string;
  identity: string;
  fileType: string;
  storage: string;
  fidelity: string;
  ggufBytes: number;
  onnxBytes: number;
  dataBytes: number;
  convertMs: number;
}

/** The folder a GGUF set converts into under `root`: one per identity (a changed file converts anew). */
export function convertedDirOf(root: string, identity: string): string {
  return path.join(root, identity.slice(0, 32));
}

/** Whether `dir` holds a finished conversion (it exists only once renamed into place). */
export function isConverted(dir: string): boolean {
  return existsSync(path.join(dir, CONVERTED_FILES.record));
}

/**
 * Converts the GGUF `file` (or the split set it starts) into `dir`, telling `onProgress` the
 * bytes of tensors converted so far. Throws GgufFormatError / GgufModelError / WeightSetError
 * with the reason; leaves nothing under `dir`'s name unless it finished.
 */
export function convertGguf(file: string, dir: string, onProgress?: ConversionProgress): ConversionRecord {
  const startMs = performance.now();
  const model = inspectGguf(file);
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(path.join(partial, 'onnx'), { recursive: true });
  try {
    writeFolderFiles(model, partial);
    const source = ggufWeightSource(model, onProgress);
    let sizes: { onnxBytes: number; dataBytes: number };
    try {
      sizes = writeFusedDecoderFiles(source, {
        onnxPath: path.join(partial, CONVERTED_FILES.graph),
        dataPath: path.join(partial, CONVERTED_FILES.data),
      });
    } finally {
      source.close();
    }
    const record: ConversionRecord = {
      source: model.set.files.map((f) => path.basename(f)),
      sourcePath: path.resolve(file),
      identity: model.set.identity,
      fileType: model.fileType,
      storage: storageLabelOf(model.plan),
      fidelity: model.plan.fidelity,
      ggufBytes: model.set.numBytes,
      ...sizes,
      convertMs: performance.now() - startMs,
    };
    writeJson(path.join(partial, CONVERTED_FILES.record), record);
    if (isConverted(dir))
      rmSync(partial, { recursive: true, force: true }); // another conversion won
    else {
      rmSync(dir, { recursive: true, force: true }); // an unfinished leftover under the final name
      renameSync(partial, dir);
    }
    return record;
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** config.json, generation_config.json and the tokenizer files, from the GGUF's metadata. */
function writeFolderFiles(model: GgufModel, dir: string): void {
  const { dims } = model;
  const bosId = model.set.metadata.get('tokenizer.ggml.bos_token_id');
  writeJson(path.join(dir, 'config.json'), {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    vocab_size: dims.vocabSize,
    hidden_size: dims.hiddenSize,
    intermediate_size: dims.intermediateSize,
    num_hidden_layers: dims.numLayers,
    num_attention_heads: dims.numHeads,
    num_key_value_heads: dims.numKvHeads,
    head_dim: dims.headDim,
    max_position_embeddings: dims.contextLength,
    rms_norm_eps: dims.rmsNormEps,
    rope_theta: dims.ropeTheta,
    tie_word_embeddings: dims.isTiedEmbedding,
    ...(typeof bosId === 'number' ? { bos_token_id: bosId } : {}),
    eos_token_id: model.eosIds,
    gguf_architecture: model.architecture,
  });
  writeJson(path.join(dir, 'generation_config.json'), { eos_token_id: model.eosIds });
  writeJson(path.join(dir, 'tokenizer.json'), model.tokenizer.tokenizerJson);
  writeJson(path.join(dir, 'tokenizer_config.json'), model.tokenizer.tokenizerConfig);
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value)}\n`);
}
