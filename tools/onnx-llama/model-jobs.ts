// The two jobs the CLI runs, as functions: convert a trained safetensors file
// into a model folder, and write a random-weight model folder. Each returns
// what it wrote, the parameter count and how long each phase took.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  TINY_SHAPE,
  makeLlamaConfig,
  validateLlamaConfig,
  type LlamaConfig,
  type LlamaShape,
} from './config';
import { writeFusedDecoder } from '../../src-main/runtime/model/fused-graph/write-fused-decoder';
import { buildLlamaOnnx } from './llama-graph';
import { randomLlamaWeights } from './random-weights';
import { readSafetensors } from './safetensors';
import type { WeightDtype } from './weight-initializers';
import { countParameters, withHfPrefixes, type LlamaWeights } from './weights';
import { readOnnxLlamaWeights } from './read-weights';
import { weightSetOf } from './weight-set';
import { writeModelFolder, type WrittenFile } from './write-model-folder';

/**
 * The graph a job writes: `fused` (GroupQueryAttention, packed projections: what First Frame
 * runs fastest) or `naive` (the transformers.js-compatible layout, the tests' oracle).
 */
export type GraphForm = 'fused' | 'naive';

/** The form `random`, `from-safetensors` and `quantize` write unless told. */
export const DEFAULT_GRAPH_FORM: GraphForm = 'fused';

/** The graph of a config and its HF weights in `form`, matrices stored as `weightDtype`. */
export function buildGraph(
  config: LlamaConfig,
  weights: LlamaWeights,
  form: GraphForm,
  weightDtype: WeightDtype,
): Uint8Array {
  if (form === 'naive') return buildLlamaOnnx(config, weights, { weightDtype });
  return writeFusedDecoder(weightSetOf(config, weights), {
    floatStorage: weightDtype,
    producer: 'first-frame onnx-llama (fused)',
  });
}

/** Result of a job: files written, parameters, and per-phase durations in ms. */
export interface ModelJobResult {
  outDir: string;
  files: WrittenFile[];
  numParameters: number;
  config: LlamaConfig;
  timingsMs: Record<string, number>;
}

/** Shape presets for `random --preset NAME`. */
export const RANDOM_PRESETS: Record<string, LlamaShape> = {
  /** ~98M parameters (tied 32000×768 embedding + 12 GQA layers). */
  '100m': {
    numLayers: 12,
    hiddenSize: 768,
    numHeads: 12,
    numKvHeads: 4,
    intermediateSize: 2048,
    vocabSize: 32000,
    maxPositions: 2048,
  },
  /** A seconds-fast model for smoke tests. */
  tiny: TINY_SHAPE,
};

function timed<T>(timingsMs: Record<string, number>, phase: string, work: () => T): T {
  const startMs = performance.now();
  const result = work();
  timingsMs[phase] = performance.now() - startMs;
  return result;
}

function buildAndWrite(
  config: LlamaConfig,
  weights: LlamaWeights,
  spec: { outDir: string; weightDtype: WeightDtype; form: GraphForm; tokenizerFrom?: string },
  timingsMs: Record<string, number>,
): ModelJobResult {
  const onnxBytes = timed(timingsMs, 'buildOnnx', () =>
    buildGraph(config, weights, spec.form, spec.weightDtype),
  );
  const files = timed(timingsMs, 'writeFiles', () => writeModelFolder({ ...spec, config, onnxBytes }));
  return { outDir: spec.outDir, files, numParameters: countParameters(config), config, timingsMs };
}

/** Converts a trained safetensors file + HF config.json into a model folder. */
export function convertSafetensors(spec: {
  weightsPath: string;
  configPath: string;
  outDir: string;
  weightDtype: WeightDtype;
  form: GraphForm;
  tokenizerFrom?: string;
}): ModelJobResult {
  const timingsMs: Record<string, number> = {};
  const config = validateLlamaConfig(JSON.parse(readFileSync(spec.configPath, 'utf8')));
  const weights = timed(timingsMs, 'readWeights', () =>
    withHfPrefixes(readSafetensors(spec.weightsPath).tensors),
  );
  return buildAndWrite(config, weights, spec, timingsMs);
}

/** Writes a model folder with seeded random weights for the given shape. */
export function writeRandomModel(spec: {
  shape: LlamaShape;
  seed: number;
  outDir: string;
  weightDtype: WeightDtype;
  form: GraphForm;
  tokenizerFrom?: string;
}): ModelJobResult {
  const timingsMs: Record<string, number> = {};
  const config = makeLlamaConfig(spec.shape);
  const weights = timed(timingsMs, 'randomWeights', () => randomLlamaWeights(config, { seed: spec.seed }));
  return buildAndWrite(config, weights, spec, timingsMs);
}

/**
 * Rewrites a folder's `onnx/model.onnx` in `form` from the weights it holds now (either form;
 * values exact), matrices stored as `weightDtype` (default: config.json's torch_dtype).
 */
export function convertModelForm(spec: {
  modelDir: string;
  form: GraphForm;
  weightDtype?: WeightDtype;
}): ModelJobResult {
  const timingsMs: Record<string, number> = {};
  const config = validateLlamaConfig(JSON.parse(readFileSync(join(spec.modelDir, 'config.json'), 'utf8')));
  const onnxPath = join(spec.modelDir, 'onnx', 'model.onnx');
  const weights = timed(timingsMs, 'readWeights', () => readOnnxLlamaWeights(onnxPath, config));
  const weightDtype = spec.weightDtype ?? (config.torch_dtype === 'float16' ? 'float16' : 'float32');
  const bytes = timed(timingsMs, 'buildOnnx', () => buildGraph(config, weights, spec.form, weightDtype));
  timed(timingsMs, 'writeFiles', () => writeFileSync(onnxPath, bytes));
  return {
    outDir: spec.modelDir,
    files: [{ path: join('onnx', 'model.onnx'), numBytes: bytes.length }],
    numParameters: countParameters(config),
    config,
    timingsMs,
  };
}
