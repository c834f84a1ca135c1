import { describe, expect, it } from 'vitest';
import {
  messageField,
  textField,
  varintField,
  concatBytes,
  bytesField,
} from '../../../../../src-main/runtime/model/onnx-graph/proto-writer';
import { MemoryBytes, fieldsOf } from '../../../../../src-main/runtime/model/onnx-graph/proto-reader';
import { floatValues, intValues } from '../../../../../src-main/runtime/model/onnx-graph/tensor-view';
import { tensorOf } from '../../../../../src-main/runtime/model/onnx-graph/tensor-view';

/** ONNX TensorProto data types used here. */
const FLOAT = 1;
const INT64 = 7;

/** A TensorProto (dims, data_type, name) with `payload` as its typed field, wrapped so fieldsOf finds it. */
function tensorBytes(numElements: number, dataType: number, payload: Uint8Array): Uint8Array {
  return messageField(1, [varintField(1, numElements), varintField(2, dataType), textField(8, 'w'), payload]);
}

/** A packed varint run (int64_data, field 7) of small non-negative values. */
function packedVarints(values: number[]): Uint8Array {
  const bytes: number[] = [];
  for (const value of values) {
    let rest = value;
    while (rest >= 128) {
      bytes.push((rest % 128) | 0x80);
      rest = Math.floor(rest / 128);
    }
    bytes.push(rest);
  }
  return concatBytes(bytesField(7, [Uint8Array.from(bytes)]));
}

describe('tensors stored in typed fields', () => {
  // 300,000 values: past the ~120k arguments a spread into push could take (a weight's size).
  const NUM = 300_000;

  it('reads a float_data weight of 300,000 values exactly, without overflowing the stack', () => {
    const floats = Float32Array.from({ length: NUM }, (_, i) => i / 8);
    const payload = concatBytes(bytesField(4, [new Uint8Array(floats.buffer)]));
    const bytes = tensorBytes(NUM, FLOAT, payload);
    const tensor = tensorOf(
      { bytes: new MemoryBytes(bytes), external: new Map() },
      fieldsOf(new MemoryBytes(bytes))[0]!,
    );
    expect(tensor.dims).toEqual([NUM]);
    const values = floatValues(tensor)!;
    expect(values).toHaveLength(NUM);
    expect(
      Buffer.from(values.buffer, values.byteOffset, values.byteLength).equals(Buffer.from(floats.buffer)),
    ).toBe(true);
  });

  it('reads an int64_data tensor of 300,000 values exactly', () => {
    const ints = Array.from({ length: NUM }, (_, i) => i % 1000);
    const bytes = tensorBytes(NUM, INT64, packedVarints(ints));
    const tensor = tensorOf(
      { bytes: new MemoryBytes(bytes), external: new Map() },
      fieldsOf(new MemoryBytes(bytes))[0]!,
    );
    const values = intValues(tensor)!;
    expect(values).toHaveLength(NUM);
    expect(values.findIndex((value, i) => value !== ints[i])).toBe(-1);
  });
});
