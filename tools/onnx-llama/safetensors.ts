// Reads and writes .safetensors files: 8-byte little-endian header length, a
// JSON header {name: {dtype, shape, data_offsets}}, then the raw tensor bytes.
// Every tensor is returned as float32 (F32, F16, BF16 and F64 are read).

import { readFileSync, writeFileSync } from 'node:fs';
import {
  bfloat16ArrayToFloat32,
  float32ToHalfInto,
  halfArrayToFloat32,
} from '../../src-main/runtime/model/float16';
import type { NamedTensor } from './weights';

/** Storage dtypes this module reads; it writes F32, F16 and BF16. */
export type SafetensorsDtype = 'F32' | 'F16' | 'BF16' | 'F64';

/** Contents of a safetensors file: float32 tensors by name plus the string metadata. */
export interface SafetensorsContents {
  tensors: Map<string, NamedTensor>;
  metadata: Record<string, string>;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

const BYTES_PER_ELEMENT: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2, F64: 8 };

function copyBytes(bytes: Uint8Array, begin: number, end: number): ArrayBuffer {
  const copy = new Uint8Array(end - begin);
  copy.set(bytes.subarray(begin, end));
  return copy.buffer;
}

function decodeTensor(name: string, entry: HeaderEntry, bytes: Uint8Array, dataStart: number): NamedTensor {
  const dtype = entry.dtype as SafetensorsDtype;
  const bytesPerElement = BYTES_PER_ELEMENT[dtype];
  if (!bytesPerElement) throw new Error(`safetensors: tensor ${name} has unsupported dtype ${entry.dtype}`);
  const [begin, end] = entry.data_offsets;
  const numElements = entry.shape.reduce((a, b) => a * b, 1);
  if (end - begin !== numElements * bytesPerElement || dataStart + end > bytes.length) {
    throw new Error(
      `safetensors: tensor ${name} offsets [${begin}, ${end}] do not fit shape [${entry.shape}] ${dtype}`,
    );
  }
  const buffer = copyBytes(bytes, dataStart + begin, dataStart + end);
  let data: Float32Array;
  if (dtype === 'F32') data = new Float32Array(buffer);
  else if (dtype === 'F16') data = halfArrayToFloat32(new Uint16Array(buffer));
  else if (dtype === 'BF16') data = bfloat16ArrayToFloat32(new Uint16Array(buffer));
  else data = Float32Array.from(new Float64Array(buffer));
  return { data, shape: [...entry.shape] };
}

/** Parses safetensors bytes; every tensor is converted to float32. */
export function parseSafetensors(bytes: Uint8Array): SafetensorsContents {
  if (bytes.length < 8) throw new Error('safetensors: file shorter than its 8-byte header length');
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (8 + headerLength > bytes.length)
    throw new Error(`safetensors: header length ${headerLength} exceeds file size`);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<
    string,
    unknown
  >;
  const tensors = new Map<string, NamedTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') metadata = entry as Record<string, string>;
    else tensors.set(name, decodeTensor(name, entry as HeaderEntry, bytes, 8 + headerLength));
  }
  return { tensors, metadata };
}

/** Reads a .safetensors file from disk (whole file in memory; fine below ~2 GB). */
export function readSafetensors(path: string): SafetensorsContents {
  return parseSafetensors(readFileSync(path));
}

function encodeData(data: Float32Array, dtype: Exclude<SafetensorsDtype, 'F64'>): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const halves = new Uint16Array(data.length);
  if (dtype === 'F16') {
    float32ToHalfInto(data, halves);
  } else {
    const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
    for (let i = 0; i < bits.length; i++) halves[i] = (bits[i]! + 0x7fff + ((bits[i]! >>> 16) & 1)) >>> 16;
  }
  return new Uint8Array(halves.buffer);
}

/** Encodes float32 tensors as a safetensors file in the given storage dtype (BF16 rounds to nearest even). */
export function encodeSafetensors(
  tensors: Map<string, NamedTensor>,
  dtype: Exclude<SafetensorsDtype, 'F64'> = 'F32',
  metadata: Record<string, string> = {},
): Uint8Array {
  const header: Record<string, unknown> = Object.keys(metadata).length > 0 ? { __metadata__: metadata } : {};
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const [name, tensor] of tensors) {
    const chunk = encodeData(tensor.data, dtype);
    header[name] = { dtype, shape: tensor.shape, data_offsets: [offset, offset + chunk.length] };
    chunks.push(chunk);
    offset += chunk.length;
  }
  const unpaddedLength = new TextEncoder().encode(JSON.stringify(header)).length;
  const headerText = JSON.stringify(header) + ' '.repeat((8 - (unpaddedLength % 8)) % 8);
  const headerBytes = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let position = 8 + headerBytes.length;
  for (const chunk of chunks) {
    out.set(chunk, position);
    position += chunk.length;
  }
  return out;
}

/** Writes float32 tensors to a .safetensors file (see encodeSafetensors). */
export function writeSafetensors(
  path: string,
  tensors: Map<string, NamedTensor>,
  dtype: Exclude<SafetensorsDtype, 'F64'> = 'F32',
  metadata: Record<string, string> = {},
): void {
  writeFileSync(path, encodeSafetensors(tensors, dtype, metadata));
}
