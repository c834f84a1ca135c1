// Model folders in the layouts people download, each with a plain twin: the same
// config and weights as `onnx/model.onnx` with the plain graph contract. The
// layout tests check that First Frame (and transformers.js) give each layout the
// same greedy tokens as its twin.

import { join } from 'node:path';
import { TINY_SHAPE, makeLlamaConfig, type LlamaShape } from './config';
import { buildLlamaOnnx, type GraphIo } from './llama-graph';
import { buildGraph, type GraphForm } from './model-jobs';
import { randomLlamaWeights } from './random-weights';
import { writeModelFolder, type WrittenFile } from './write-model-folder';
import type { WriteOptions } from './onnx-file';

/** One layout: where its graph goes and how it differs from the plain contract. */
export interface LayoutSpec {
  /** The graph file, relative to the folder. */
  onnxFile: string;
  io?: Partial<GraphIo>;
  externalData?: WriteOptions;
  /** Shape changes (MHA: as many K/V heads as query heads). */
  shape?: Partial<LlamaShape>;
  /** What transformers.js needs to find the file (its from_pretrained options). */
  transformersOptions: Record<string, unknown>;
}

/** The layouts, by name; `plain` is the twin every other one is compared with. */
export const LAYOUTS = {
  plain: { onnxFile: 'onnx/model.onnx', transformersOptions: { dtype: 'fp32' } },
  'external-data': {
    onnxFile: 'onnx/model.onnx',
    // Small chunks so the weights span model.onnx_data and model.onnx_data_1.
    externalData: { externalMinBytes: 1024, maxDataFileBytes: 512 * 1024 },
    transformersOptions: { dtype: 'fp32', use_external_data_format: 2 },
  },
  'root-file': { onnxFile: 'model.onnx', transformersOptions: { dtype: 'fp32', subfolder: '' } },
  merged: {
    onnxFile: 'onnx/decoder_model_merged.onnx',
    io: { hasUseCacheBranch: true },
    transformersOptions: { dtype: 'fp32', model_file_name: 'decoder_model_merged' },
  },
  'no-position-ids': {
    onnxFile: 'onnx/model.onnx',
    io: { hasPositionIds: false },
    transformersOptions: { dtype: 'fp32' },
  },
  'logits-to-keep': {
    onnxFile: 'onnx/model.onnx',
    io: { logitsToKeepInput: 'num_logits_to_keep' },
    transformersOptions: { dtype: 'fp32' },
  },
  'fp16-past': {
    onnxFile: 'onnx/model_fp16.onnx',
    io: { kvDtype: 'float16', logitsDtype: 'float16' },
    transformersOptions: { dtype: 'fp16' },
  },
  mha: { onnxFile: 'onnx/model.onnx', shape: { numKvHeads: 4 }, transformersOptions: { dtype: 'fp32' } },
  'matmul-head': {
    onnxFile: 'onnx/model.onnx',
    io: { isMatMulHead: true },
    transformersOptions: { dtype: 'fp32' },
  },
} satisfies Record<string, LayoutSpec>;

/** A layout's name. */
export type LayoutName = keyof typeof LAYOUTS;

/**
 * Writes a random-weight model folder in `layout`. Weights are drawn wide (std 0.3) so greedy
 * tokens vary; the same seed and shape give the same weights in every layout.
 */
export function writeLayoutModel(spec: {
  layout: LayoutName;
  outDir: string;
  seed: number;
  tokenizerFrom?: string;
  /** Write the layout's plain twin instead: its shape and weights, the plain file and graph. */
  isTwin?: boolean;
  /** `fused`: the layout's shape and weights as a fused onnx/model.onnx (its I/O has no layouts). */
  form?: GraphForm;
}): WrittenFile[] {
  const layout: LayoutSpec = LAYOUTS[spec.layout];
  const isPlain = spec.isTwin || spec.form === 'fused';
  const written: LayoutSpec = isPlain ? { ...LAYOUTS.plain, shape: layout.shape } : layout;
  // Every layout is the tiny shape, a layout's own shape fields on top (mha: 4 K/V heads).
  const config = makeLlamaConfig({ ...TINY_SHAPE, ...layout.shape });
  const weights = randomLlamaWeights(config, { seed: spec.seed, std: 0.3 });
  return writeModelFolder({
    outDir: spec.outDir,
    config,
    onnxBytes:
      spec.form === 'fused'
        ? buildGraph(config, weights, 'fused', 'float32')
        : buildLlamaOnnx(config, weights, { weightDtype: 'float32', io: written.io }),
    weightDtype: 'float32',
    tokenizerFrom: spec.tokenizerFrom,
    onnxFile: written.onnxFile,
    externalData: written.externalData,
  });
}

/** The folder of a layout model under `root` (`<root>/<layout>`); its twin is `<root>/<layout>-twin`. */
export function layoutDirs(root: string, layout: LayoutName): { dir: string; twinDir: string } {
  return { dir: join(root, layout), twinDir: join(root, `${layout}-twin`) };
}
