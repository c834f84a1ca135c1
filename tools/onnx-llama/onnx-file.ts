// Reading and writing whole ONNX model files for the tools (quantize, layout
// writers): external data is resolved into raw_data on read (only from files
// inside the model's folder) and can be split out again on write, into
// `<file>_data`, `<file>_data_1`, … as Optimum and transformers.js name them.

import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { halfArrayToFloat32 } from '../../src-main/runtime/model/float16';

const { onnx } = onnxProto;

/** TensorProto.DataType codes the tools read and write. */
export const DATA_TYPE = {
  float32: 1,
  uint8: 2,
  int8: 3,
  int32: 6,
  int64: 7,
  float16: 10,
  bfloat16: 16,
} as const;
const EXTERNAL = 1;

/** A decoded model and the external data files its initializers were read from. */
export interface ReadModel {
  model: Onnx.ModelProto;
  externalFiles: string[];
}

/** Decodes a model file; initializers stored as external data are read into raw_data. */
export function readOnnxModel(file: string): ReadModel {
  const model = onnx.ModelProto.decode(readFileSync(file));
  const externalFiles = new Set<string>();
  for (const tensor of model.graph?.initializer ?? []) {
    if (tensor.dataLocation !== EXTERNAL) continue;
    const entries = new Map((tensor.externalData ?? []).map((e) => [e.key, e.value]));
    const location = entries.get('location') ?? '';
    const target = resolve(dirname(file), location);
    if (relative(dirname(resolve(file)), target).startsWith('..') || location.startsWith(sep))
      throw new Error(`${tensor.name}: external data "${location}" is outside the model's folder`);
    externalFiles.add(location);
    const offset = Number(entries.get('offset') ?? 0);
    const length = Number(entries.get('length') ?? 0);
    tensor.rawData = readRange(target, offset, length);
    tensor.dataLocation = 0;
    tensor.externalData = [];
  }
  return { model, externalFiles: [...externalFiles] };
}

function readRange(file: string, offset: number, length: number): Uint8Array {
  const fd = openSync(file, 'r');
  try {
    const bytes = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, bytes, done, length - done, offset + done);
      if (n === 0) throw new Error(`${file}: ends before offset ${offset + length}`);
      done += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** Element count of a tensor's dims. */
export function numElements(tensor: Onnx.ITensorProto): number {
  return (tensor.dims ?? []).reduce<number>((a, b) => a * Number(b), 1);
}

/** A float tensor's values as float32 (fp32, fp16 or bf16, raw or typed storage). */
export function tensorFloats(tensor: Onnx.ITensorProto): Float32Array {
  const count = numElements(tensor);
  const raw = tensor.rawData && tensor.rawData.length > 0 ? tensor.rawData : null;
  if (tensor.dataType === DATA_TYPE.float32) {
    if (!raw) return Float32Array.from(tensor.floatData ?? []);
    return new Float32Array(copyBytes(raw).buffer, 0, count);
  }
  if (tensor.dataType === DATA_TYPE.float16 || tensor.dataType === DATA_TYPE.bfloat16) {
    const bits = raw
      ? new Uint16Array(copyBytes(raw).buffer, 0, count)
      : Uint16Array.from(tensor.int32Data ?? []);
    if (tensor.dataType === DATA_TYPE.float16) return halfArrayToFloat32(bits);
    const out = new Float32Array(count);
    const outBits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) outBits[i] = bits[i]! << 16;
    return out;
  }
  throw new Error(`${tensor.name}: data type ${tensor.dataType} is not a float type`);
}

/** An aligned copy (a Node Buffer's `slice` is a view into the whole file, often unaligned). */
function copyBytes(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

/** An initializer from raw little-endian bytes. */
export function rawTensor(
  name: string,
  dataType: number,
  dims: number[],
  bytes: Uint8Array,
): Onnx.ITensorProto {
  return { name, dataType, dims, rawData: bytes };
}

/** Options for writeOnnxModel. */
export interface WriteOptions {
  /** Move initializers of at least this many bytes to external data files; none when undefined. */
  externalMinBytes?: number;
  /** Start a new data file (`_data_1`, …) when one would grow past this; default unbounded. */
  maxDataFileBytes?: number;
}

/** Encodes and writes a model; returns every file written (the .onnx first). */
export function writeOnnxModel(file: string, model: Onnx.IModelProto, options: WriteOptions = {}): string[] {
  const written = [file];
  if (options.externalMinBytes !== undefined) written.push(...splitExternal(file, model, options));
  writeFileSync(file, onnx.ModelProto.encode(model).finish());
  return written;
}

function splitExternal(file: string, model: Onnx.IModelProto, options: WriteOptions): string[] {
  const maxBytes = options.maxDataFileBytes ?? Number.POSITIVE_INFINITY;
  const files: Array<{ name: string; parts: Uint8Array[]; size: number }> = [];
  for (const tensor of model.graph?.initializer ?? []) {
    const raw = tensor.rawData;
    if (!raw || raw.length < options.externalMinBytes!) continue;
    let current = files.at(-1);
    if (!current || (current.size > 0 && current.size + raw.length > maxBytes)) {
      const suffix = files.length === 0 ? '' : `_${files.length}`;
      current = { name: `${basename(file)}_data${suffix}`, parts: [], size: 0 };
      files.push(current);
    }
    tensor.dataLocation = EXTERNAL;
    tensor.externalData = [
      { key: 'location', value: current.name },
      { key: 'offset', value: String(current.size) },
      { key: 'length', value: String(raw.length) },
    ];
    tensor.rawData = new Uint8Array(0);
    current.parts.push(raw);
    current.size += raw.length;
  }
  return files.map(({ name, parts }) => {
    const target = join(dirname(file), name);
    writeFileSync(target, Buffer.concat(parts));
    return target;
  });
}
