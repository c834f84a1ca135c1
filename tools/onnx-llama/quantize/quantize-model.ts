// The `quantize` job: reads a model folder's full-precision graph and writes
// its weight-only block-quantized variant next to it (`model_q4.onnx`,
// `model_q8.onnx`, transformers.js's names), with external data when the
// source had it. Deterministic: the same source and options give the same bytes.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { quantizeWeightSet } from '../../../src-main/runtime/model/fused-graph/quantize-weight-set';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import { validateLlamaConfig } from '../config';
import { DEFAULT_GRAPH_FORM, type GraphForm } from '../model-jobs';
import { readOnnxModel, writeOnnxModel } from '../onnx-file';
import { isFusedModel, readFusedWeightSet } from '../read-fused';
import { llamaWeightsOfModel } from '../read-weights';
import { decoderDimsOf, weightSetOf } from '../weight-set';
import type { QuantBits, QuantScheme } from '../../../src-main/runtime/model/fused-graph/block-quantize';
import { checkBlockSize } from '../../../src-main/runtime/model/fused-graph/block-quantize';
import { quantizeGraph } from './rewrite-graph';
import type { RewriteReport } from './rewrite-graph';

/** Source files tried in order: the fp32-activation graph, in the onnx/ subfolder or at the root. */
export const QUANTIZE_SOURCES = [join('onnx', 'model.onnx'), 'model.onnx'] as const;

/**
 * The command's defaults, chosen by measurement (README "Quantize"): symmetric blocks of 32
 * (llama.cpp's q4_0/q8_0 scheme), int8 activations (accuracy level 4: the fast CPU kernels),
 * embeddings quantized too.
 */
export const QUANTIZE_DEFAULTS = {
  blockSize: 32,
  accuracyLevel: 4,
  scheme: 'symmetric',
  isQuantizingEmbeddings: true,
  form: DEFAULT_GRAPH_FORM,
} as const satisfies Partial<QuantizeSpec>;

/** What `quantize` needs. */
export interface QuantizeSpec {
  modelDir: string;
  bits: QuantBits;
  blockSize: number;
  accuracyLevel: number;
  scheme: QuantScheme;
  isQuantizingEmbeddings: boolean;
  /** The written graph's form; a fused source can only be written fused. */
  form: GraphForm;
}

/** What `quantize` wrote. */
export interface QuantizeResult {
  source: string;
  files: Array<{ path: string; numBytes: number }>;
  sourceBytes: number;
  report: RewriteReport;
  timingsMs: Record<string, number>;
}

/** The naive rewrite: every float MatMul/Gemm/Gather weight of the graph in place. */
function quantizeNaive(
  model: Onnx.ModelProto,
  spec: QuantizeSpec,
  sourceRel: string,
  producer: string,
): { quantized: Onnx.ModelProto; report: RewriteReport } {
  if (isFusedModel(model))
    throw new Error(`${sourceRel} is a fused graph: it quantizes to the fused form only (--form fused)`);
  const report = quantizeGraph(model, spec);
  if (report.numMatMuls === 0)
    throw new Error(`${sourceRel}: no MatMul or Gemm with a float weight to quantize`);
  model.producerName = producer;
  return { quantized: model, report };
}

/** The fused form of the source's weights (naive or fused), every matrix block-quantized. */
function quantizeFused(
  model: Onnx.ModelProto,
  spec: QuantizeSpec,
  producer: string,
): { quantized: Onnx.ModelProto; report: RewriteReport } {
  const config = validateLlamaConfig(JSON.parse(readFileSync(join(spec.modelDir, 'config.json'), 'utf8')));
  const source = isFusedModel(model)
    ? readFusedWeightSet(model, decoderDimsOf(config))
    : weightSetOf(config, llamaWeightsOfModel(model, config));
  const { set, keptFloat } = quantizeWeightSet(source, spec);
  const bytes = writeFusedDecoder(set, { accuracyLevel: spec.accuracyLevel as 0 | 1 | 2 | 3 | 4, producer });
  const quantized = onnxProto.onnx.ModelProto.decode(bytes);
  const numMatMuls = quantized.graph!.node!.filter((n) => n.opType === 'MatMulNBits').length;
  const numGathers = quantized.graph!.node!.filter((n) => n.opType === 'GatherBlockQuantized').length;
  const skipped = keptFloat.map(({ weight, reason }) => ({ node: weight, reason }));
  return { quantized, report: { numMatMuls, numGathers, skipped } };
}

/** Quantizes `<dir>/onnx/model.onnx` (or `<dir>/model.onnx`) into `model_q<bits>.onnx` beside it. */
export function quantizeModelFolder(spec: QuantizeSpec): QuantizeResult {
  checkBlockSize(spec.blockSize);
  if (!Number.isInteger(spec.accuracyLevel) || spec.accuracyLevel < 0 || spec.accuracyLevel > 4)
    throw new Error(`accuracy level must be 0–4, got ${spec.accuracyLevel}`);
  const sourceRel = QUANTIZE_SOURCES.find((f) => existsSync(join(spec.modelDir, f)));
  if (!sourceRel)
    throw new Error(
      `${spec.modelDir}: no ${QUANTIZE_SOURCES.join(' or ')} (the full-precision graph) to quantize`,
    );
  const source = join(spec.modelDir, sourceRel);
  const timingsMs: Record<string, number> = {};
  let startMs = performance.now();
  const { model, externalFiles } = readOnnxModel(source);
  const hadExternalData = externalFiles.length > 0;
  timingsMs['read'] = performance.now() - startMs;
  startMs = performance.now();
  const producer = `first-frame onnx-llama quantize (${spec.bits}-bit ${spec.scheme}, block ${spec.blockSize})`;
  const { quantized, report } =
    spec.form === 'fused'
      ? quantizeFused(model, spec, producer)
      : quantizeNaive(model, spec, sourceRel, producer);
  timingsMs['quantize'] = performance.now() - startMs;
  startMs = performance.now();
  const target = join(dirname(source), `model_q${spec.bits}.onnx`);
  const written = writeOnnxModel(target, quantized, hadExternalData ? { externalMinBytes: 1024 } : {});
  timingsMs['write'] = performance.now() - startMs;
  return {
    source: sourceRel,
    files: written.map((file) => ({ path: relative(spec.modelDir, file), numBytes: statSync(file).size })),
    sourceBytes: statSync(source).size,
    report,
    timingsMs,
  };
}
