// Reads HF-named Llama weights back out of an ONNX file written by tools/onnx-llama: matrices
// are stored as `<hf name>[.transposed][.fp16]` ([in, out] when transposed), norm vectors
// under their HF names. The values come back exactly (fp16 widens to float32 losslessly).

import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { halfArrayToFloat32 } from '../onnx-llama/float16';
import type { LlamaWeights, NamedTensor } from '../onnx-llama';

const FLOAT32 = 1;
const FLOAT16 = 10;

/** An initializer's values as float32, from raw_data or the typed fields. */
function valuesOf(tensor: Onnx.ITensorProto): Float32Array {
  if (tensor.dataLocation === onnxProto.onnx.TensorProto.DataLocation.EXTERNAL)
    throw new Error(`initializer ${tensor.name} is in external data, which this reader does not follow`);
  const raw = tensor.rawData && tensor.rawData.length > 0 ? Uint8Array.from(tensor.rawData) : null;
  if (tensor.dataType === FLOAT32)
    return raw ? new Float32Array(raw.buffer) : Float32Array.from(tensor.floatData ?? []);
  if (tensor.dataType === FLOAT16)
    return halfArrayToFloat32(raw ? new Uint16Array(raw.buffer) : Uint16Array.from(tensor.int32Data ?? []));
  throw new Error(`initializer ${tensor.name} has data type ${tensor.dataType}, not float32 or float16`);
}

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
  const data = valuesOf(tensor);
  if (!isTransposed) return { data, shape: dims };
  const [numRows, numCols] = dims as [number, number];
  return { data: transposed(data, numRows, numCols), shape: [numCols, numRows] };
}

/**
 * Weights by HF name from an onnx-llama ONNX file (fp32 or fp16 storage). Other exporters'
 * initializer names are not recognized: the caller checks the result against the config.
 */
export function readOnnxLlamaWeights(onnxPath: string): LlamaWeights {
  const model = onnxProto.onnx.ModelProto.decode(readFileSync(onnxPath));
  const weights: LlamaWeights = new Map();
  for (const tensor of model.graph?.initializer ?? []) {
    const match = /^((?:model\.|lm_head\.).*\.weight)(\.transposed)?(\.fp16)?$/.exec(tensor.name ?? '');
    if (!match) continue;
    weights.set(match[1]!, hfTensor(tensor, match[2] !== undefined));
  }
  return weights;
}
