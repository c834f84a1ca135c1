// One GGUF model as listing sees it: its files, architecture, dimensions, tokenizer and how its
// weights will be stored once converted. Only headers are read; no tensor data.

import type { TokenizerFiles } from '../../tokenize/tokenizer';
import { architectureOf, dimsOf, GGUF_ARCHITECTURES, layoutOf } from './gguf-architecture';
import type { GgufDims, LayerExtra } from './gguf-architecture';
import { readGgufSet } from './gguf-files';
import type { GgufSet } from './gguf-files';
import { eosIdsOfGguf, tokenizerFilesOfGguf } from '../../tokenize/gguf-tokenizer';
import { fileTypeName } from './ggml-types';
import { storagePlanOf } from './storage-plan';
import type { StoragePlan } from './storage-plan';
import type { ProjectionLayout } from './stacked-projections';

/** A GGUF model checked at listing. */
export interface GgufModel {
  set: GgufSet;
  architecture: string;
  /** Whether llama.cpp stored Q/K rows permuted for its interleaved rope (undone at conversion). */
  isRopePermuted: boolean;
  /** What its layers add to llama's (q/k/v biases, q/k norms). */
  extras: readonly LayerExtra[];
  /** Whether each layer's q/k/v and gate/up are stacked in one tensor each (phi3) or apart. */
  layout: ProjectionLayout;
  dims: GgufDims;
  tokenizer: TokenizerFiles;
  eosIds: number[];
  /** llama.cpp's file type (`q4_k_m`, `f16`, …), or `gguf` when the file does not say. */
  fileType: string;
  plan: StoragePlan;
}

/**
 * Reads a GGUF file (or the split set it belongs to) and checks it can be converted. Throws
 * GgufFormatError, GgufModelError or GgufTokenizerError with the reason in words, NotSupportedYet
 * for a valid file of an architecture or pre-tokenizer First Frame does not run yet.
 */
export function inspectGguf(file: string): GgufModel {
  const set = readGgufSet(file);
  const architecture = architectureOf(set.metadata);
  const dims = dimsOf(architecture, set.metadata, set.tensors);
  const plan = storagePlanOf(set.tensors);
  const tokenizer = tokenizerFilesOfGguf(set.metadata);
  const fileTypeId = set.metadata.get('general.file_type');
  return {
    set,
    architecture,
    isRopePermuted: GGUF_ARCHITECTURES[architecture]!.isRopePermuted,
    extras: GGUF_ARCHITECTURES[architecture]!.extras,
    layout: layoutOf(architecture, set.tensors),
    dims,
    tokenizer,
    eosIds: eosIdsOfGguf(set.metadata),
    fileType: fileTypeName(typeof fileTypeId === 'number' ? fileTypeId : null) ?? 'gguf',
    plan,
  };
}
