import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import {
  ELEMENT_BYTES,
  ELEMENT_TYPE_CODE,
  elementTypeName,
} from '../../../../../src-main/runtime/model/onnx-graph/element-types';

/** onnx-proto's enum names for the names onnxruntime-node uses where they differ. */
const PROTO_NAMES: Record<string, string> = { float32: 'FLOAT', float64: 'DOUBLE' };

describe('the one ONNX element type table', () => {
  it("gives every type onnx-proto knows onnx-proto's own code, and reads each code back to its name", () => {
    const protoCodes = onnxProto.onnx.TensorProto.DataType as unknown as Record<string, number>;
    const known = Object.keys(ELEMENT_TYPE_CODE).filter(
      (name) => (PROTO_NAMES[name] ?? name.toUpperCase()) in protoCodes,
    );
    expect(known.length).toBeGreaterThanOrEqual(16);
    for (const name of known) {
      const code = ELEMENT_TYPE_CODE[name as keyof typeof ELEMENT_TYPE_CODE];
      expect(code, name).toBe(protoCodes[PROTO_NAMES[name] ?? name.toUpperCase()]);
      expect(elementTypeName(code)).toBe(name);
    }
    expect(elementTypeName(99)).toBe('type99');
  });

  it("sizes each type onnxruntime-node has a typed array for as that array's element", () => {
    const samples: [string, ort.Tensor][] = [
      ['float32', new ort.Tensor('float32', new Float32Array(1), [1])],
      ['int32', new ort.Tensor('int32', new Int32Array(1), [1])],
      ['int64', new ort.Tensor('int64', new BigInt64Array(1), [1])],
      ['float16', new ort.Tensor('float16', new Uint16Array(1), [1])],
      ['uint8', new ort.Tensor('uint8', new Uint8Array(1), [1])],
      ['float64', new ort.Tensor('float64', new Float64Array(1), [1])],
    ];
    for (const [name, tensor] of samples) {
      expect(tensor.type).toBe(name);
      expect(ELEMENT_BYTES[name], name).toBe(
        (tensor.data as ArrayLike<unknown> & ArrayBufferView).byteLength,
      );
    }
  });
});
