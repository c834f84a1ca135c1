// Small helpers the graph rewrite uses: INT attributes, raw bytes of typed arrays,
// and a float transpose (MatMul weights are [K, N]; MatMulNBits wants [N, K]).

import type { onnx as Onnx } from 'onnx-proto';
import { transposeInto } from '../../../src-main/runtime/model/fused-graph/float-matrix';

const INT = 2;

/** An INT node attribute. */
export function intAttr(name: string, value: number): Onnx.IAttributeProto {
  return { name, type: INT, i: value };
}

/** [rows, cols] floats → [cols, rows]. */
export function transposeFloats(values: Float32Array, numRows: number, numCols: number): Float32Array {
  const out = new Float32Array(values.length);
  transposeInto(
    new Uint32Array(values.buffer, values.byteOffset, values.length),
    new Uint32Array(out.buffer),
    numRows,
    numCols,
  );
  return out;
}

/** The bytes of a typed array, as a view. */
export function bytesOf(array: Float32Array | BigInt64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
