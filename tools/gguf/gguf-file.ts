// The GGUF v3 container: a header, typed metadata, tensor descriptors and the tensor data,
// each tensor aligned to `general.alignment` (32). Written piece by piece with positional
// writes, so a model is never concatenated in memory (writeGgufStreamed: nor any whole tensor).

import { closeSync, openSync, writeSync } from 'node:fs';

/** GGUF metadata value types (gguf.h `gguf_type`). */
const VALUE_TYPE = {
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
} as const;

/** One metadata value: the few types a llama GGUF needs. */
export type GgufValue =
  | { type: 'uint32'; value: number }
  | { type: 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'int32s'; value: Int32Array }
  | { type: 'float32s'; value: Float32Array };

/** ggml tensor types this writer stores (ggml.h `ggml_type`). */
export const GGML_TYPE = { f32: 0, f16: 1, q4_0: 2, q8_0: 8 } as const;

/** A ggml tensor type name. */
export type GgmlTypeName = keyof typeof GGML_TYPE;

/** One tensor: `ne` is ggml's order (innermost, contiguous dimension first). */
export interface GgufTensor {
  name: string;
  ne: number[];
  type: GgmlTypeName;
  data: Uint8Array;
}

/** Data alignment (bytes) every tensor offset is padded to; llama.cpp's default. */
export const GGUF_ALIGNMENT = 32;
const MAGIC = 0x46554747; // "GGUF" little-endian
const VERSION = 3;

/** Little-endian byte builder for the header part (metadata and tensor descriptors). */
class HeaderBytes {
  private readonly chunks: Uint8Array[] = [];
  length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  private scalar(size: number, write: (view: DataView) => void): void {
    const bytes = new Uint8Array(size);
    write(new DataView(bytes.buffer));
    this.push(bytes);
  }

  u32(value: number): void {
    this.scalar(4, (v) => v.setUint32(0, value, true));
  }
  i32(value: number): void {
    this.scalar(4, (v) => v.setInt32(0, value, true));
  }
  u64(value: number): void {
    this.scalar(8, (v) => v.setBigUint64(0, BigInt(value), true));
  }
  f32(value: number): void {
    this.scalar(4, (v) => v.setFloat32(0, value, true));
  }
  string(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  raw(bytes: Uint8Array): void {
    this.push(bytes);
  }
  bytes(): Uint8Array {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(out: HeaderBytes, value: GgufValue): void {
  switch (value.type) {
    case 'uint32':
      return (out.u32(VALUE_TYPE.uint32), out.u32(value.value));
    case 'float32':
      return (out.u32(VALUE_TYPE.float32), out.f32(value.value));
    case 'bool':
      return (out.u32(VALUE_TYPE.bool), out.raw(Uint8Array.of(value.value ? 1 : 0)));
    case 'string':
      return (out.u32(VALUE_TYPE.string), out.string(value.value));
    case 'strings':
      out.u32(VALUE_TYPE.array);
      out.u32(VALUE_TYPE.string);
      out.u64(value.value.length);
      for (const text of value.value) out.string(text);
      return;
    case 'int32s':
      return writeNumbers(out, VALUE_TYPE.int32, value.value);
    case 'float32s':
      return writeNumbers(out, VALUE_TYPE.float32, value.value);
  }
}

/** An array of 4-byte numbers: its element type, count, then the values as stored (little-endian). */
function writeNumbers(out: HeaderBytes, elementType: number, values: Int32Array | Float32Array): void {
  out.u32(VALUE_TYPE.array);
  out.u32(elementType);
  out.u64(values.length);
  out.raw(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

const alignUp = (offset: number): number => Math.ceil(offset / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;

/** A tensor written piece by piece: its descriptor, its size, and `write` handing its bytes over in order. */
export interface StreamedGgufTensor {
  name: string;
  ne: number[];
  type: GgmlTypeName;
  numBytes: number;
  /** Calls `sink` with the tensor's bytes, in order, in as many pieces as it likes (`numBytes` in all). */
  write(sink: (piece: Uint8Array) => void): void;
}

/**
 * Writes a GGUF v3 file: metadata in the given order, then tensors in the given order at
 * aligned offsets. Returns the file's size in bytes.
 */
export function writeGguf(
  path: string,
  metadata: ReadonlyArray<[string, GgufValue]>,
  tensors: readonly GgufTensor[],
): number {
  const streamed = tensors.map((tensor): StreamedGgufTensor => ({
    name: tensor.name,
    ne: tensor.ne,
    type: tensor.type,
    numBytes: tensor.data.length,
    write: (sink) => sink(tensor.data),
  }));
  return writeGgufStreamed(path, metadata, streamed);
}

/**
 * writeGguf with each tensor's bytes asked for only when its turn comes, and taken in pieces:
 * a file of many GB is written holding one piece at a time. Throws when a tensor hands over
 * other than its `numBytes`.
 */
export function writeGgufStreamed(
  path: string,
  metadata: ReadonlyArray<[string, GgufValue]>,
  tensors: readonly StreamedGgufTensor[],
): number {
  const header = new HeaderBytes();
  header.u32(MAGIC);
  header.u32(VERSION);
  header.u64(tensors.length);
  header.u64(metadata.length);
  for (const [key, value] of metadata) {
    header.string(key);
    writeValue(header, value);
  }
  let dataOffset = 0;
  const offsets = tensors.map((tensor) => {
    const offset = alignUp(dataOffset);
    dataOffset = offset + tensor.numBytes;
    return offset;
  });
  tensors.forEach((tensor, i) => {
    header.string(tensor.name);
    header.u32(tensor.ne.length);
    for (const size of tensor.ne) header.u64(size);
    header.u32(GGML_TYPE[tensor.type]);
    header.u64(offsets[i]!);
  });
  const dataStart = alignUp(header.length);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header.bytes(), 0, header.length, 0);
    tensors.forEach((tensor, i) => {
      let at = dataStart + offsets[i]!;
      const end = at + tensor.numBytes;
      tensor.write((piece) => {
        if (at + piece.length > end)
          throw new Error(`${tensor.name}: more than its ${tensor.numBytes} bytes`);
        for (let done = 0; done < piece.length;)
          done += writeSync(fd, piece, done, piece.length - done, at + done);
        at += piece.length;
      });
      if (at !== end) throw new Error(`${tensor.name}: ${end - at} of its ${tensor.numBytes} bytes missing`);
    });
    // Gaps between tensors are holes in the file, read back as the zero padding GGUF expects.
    return dataStart + dataOffset;
  } finally {
    closeSync(fd);
  }
}
