// Reads HF-named Llama weights back out of an ONNX file written by tools/onnx-llama, in either
// form. Naive: matrices are stored as `<hf name>[.transposed][.fp16]` ([in, out] when
// transposed), norm vectors under their HF names. Fused: read-fused.ts splits the packed
// projections by the config's dims. Values come back exactly (fp16 widens to float32 losslessly).

import type { onnx as Onnx } from 'onnx-proto';
import type { LlamaConfig } from './config';
import { readOnnxModel, tensorFloats } from './onnx-file';
import { isFusedModel, readFusedWeightSet } from './read-fused';
import { decoderDimsOf, hfWeightsOf } from './weight-set';
import type { LlamaWeights, NamedTensor } from './weights';

/** [rows, cols] → [cols, rows]. */
function transposed(data: Float32Array, numRows: number, numCols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let row = 0; row < numRows; row++)
    for (let col = 0; col < numCols; col++) out[col * numRows + row] = data[row * numCols + col]!;
  return out;
}

/** HF-layout tensor from one initializer, undoing the writer's transpose. */
function hfTensor(tensor: Onnx.ITensorProto, isTransposed: boolean): NamedTensor {
  const dims = (tensor.dims ?? []).map(Number);
  const data = tensorFloats(tensor);
  if (!isTransposed) return { data, shape: dims };
  const [numRows, numCols] = dims as [number, number];
  return { data: transposed(data, numRows, numCols), shape: [numCols, numRows] };
}

/**
 * Weights by HF name from a decoded onnx-llama model (fp32 or fp16 storage, naive or fused).
 * Other exporters' initializer names are not recognized: the caller checks the result against
 * the config.
 */
export function llamaWeightsOfModel(model: Onnx.IModelProto, config: LlamaConfig): LlamaWeights {
  if (isFusedModel(model)) return hfWeightsOf(readFusedWeightSet(model, decoderDimsOf(config)));
  const weights: LlamaWeights = new Map();
  for (const tensor of model.graph?.initializer ?? []) {
    const match = /^((?:model\.|lm_head\.).*\.weight)(\.transposed)?(\.fp16)?$/.exec(tensor.name ?? '');
    if (!match) continue;
    weights.set(match[1]!, hfTensor(tensor, match[2] !== undefined));
  }
  return weights;
}

/** Weights by HF name from an onnx-llama ONNX file (external data read from its folder). */
export function readOnnxLlamaWeights(onnxPath: string, config: LlamaConfig): LlamaWeights {
  return llamaWeightsOfModel(readOnnxModel(onnxPath).model, config);
}
