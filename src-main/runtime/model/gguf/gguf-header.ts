// The GGUF container's header (gguf.h / gguf-py's GGUFReader): magic, version, metadata as typed
// key/values, then the tensor directory (name, dims in ggml order, type, offset into the data
// section). Read with bounded positional reads: the tensor data is never read here, and every
// count and length is checked against the file's size before anything is allocated for it.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ggmlBytesOf, ggmlTypeOf } from './ggml-types';
import type { GgmlType } from './ggml-types';

/** One metadata value: numbers (every integer and float width), booleans, strings, arrays of them. */
export type GgufMetaValue = number | boolean | string | GgufMetaValue[];

/** One tensor of the directory: where its bytes are in its file and how to read them. */
export interface GgufTensorInfo {
  name: string;
  /** ggml order: the innermost (contiguous) dimension first, so a matrix is [cols, rows]. */
  dims: number[];
  type: GgmlType;
  /** Absolute byte offset of the tensor's data in its file. */
  offset: number;
  numBytes: number;
}

/** A parsed header: metadata, tensor directory, and where the data section starts. */
export interface GgufHeader {
  version: number;
  metadata: Map<string, GgufMetaValue>;
  tensors: GgufTensorInfo[];
  dataOffset: number;
  fileBytes: number;
  /** Bytes of the header proper (magic through the tensor directory): what the header hash covers. */
  headerBytes: number;
}

/** A file that is not a GGUF First Frame can read, with the reason in words. */
export class GgufFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GgufFormatError';
  }
}

/**
 * Bounds on what a header may claim before anything is allocated for it, as work (items,
 * bytes): a file past one is refused at parse time, naming the number, before any slow build.
 */
export const GGUF_LIMITS = {
  maxStringBytes: 16 << 20,
  /** Items of one metadata array: real ones are a vocabulary's tokens or merges (at most ~300k). */
  maxArrayItems: 1_000_000,
  /** Items of all metadata arrays together (a vocabulary's tokens, scores, types and merges). */
  maxMetadataItems: 4_000_000,
  /** Bytes of one vocabulary token (`tokenizer.ggml.tokens`): real ones are a few dozen. */
  maxTokenBytes: 1024,
  maxMetadataKeys: 100_000,
  maxTensors: 1_000_000,
  maxDims: 8,
  /** A header larger than this is refused: real ones are a few MB (a 256k vocabulary's tokens). */
  maxHeaderBytes: 64 << 20,
} as const;

/** The metadata key of the vocabulary's token strings. */
const TOKENS_KEY = 'tokenizer.ggml.tokens';

const MAGIC = 0x46554747; // "GGUF" little-endian
const DEFAULT_ALIGNMENT = 32;
const CHUNK_BYTES = 1 << 20;
const textDecoder = new TextDecoder('utf-8', { fatal: false });

/** Sequential little-endian reads over a file descriptor, in chunks, never past the header limit. */
class HeaderCursor {
  private buffer = Buffer.alloc(0);
  private bufferAt = 0;
  pos = 0;
  /** Items of every metadata array read so far (GGUF_LIMITS.maxMetadataItems). */
  numItems = 0;

  constructor(
    private readonly fd: number,
    readonly fileBytes: number,
  ) {}

  private need(numBytes: number): number {
    if (this.pos + numBytes > this.fileBytes)
      throw new GgufFormatError(`ends inside its header (at byte ${this.pos}): truncated`);
    if (this.pos + numBytes > GGUF_LIMITS.maxHeaderBytes)
      throw new GgufFormatError(`header is over ${GGUF_LIMITS.maxHeaderBytes >> 20} MB; refused`);
    const at = this.pos - this.bufferAt;
    if (at >= 0 && at + numBytes <= this.buffer.length) return at;
    const length = Math.min(Math.max(numBytes, CHUNK_BYTES), this.fileBytes - this.pos);
    this.buffer = Buffer.alloc(length);
    let done = 0;
    while (done < numBytes) {
      const n = readSync(this.fd, this.buffer, done, length - done, this.pos + done);
      if (n === 0) throw new GgufFormatError(`ends inside its header (at byte ${this.pos + done})`);
      done += n;
    }
    this.bufferAt = this.pos;
    return 0;
  }

  u8(): number {
    const at = this.need(1);
    this.pos += 1;
    return this.buffer.readUInt8(at);
  }
  u32(): number {
    const at = this.need(4);
    this.pos += 4;
    return this.buffer.readUInt32LE(at);
  }
  u64(what: string): number {
    const at = this.need(8);
    this.pos += 8;
    const value = this.buffer.readBigUInt64LE(at);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufFormatError(`${what} is too large (${value})`);
    return Number(value);
  }
  scalar(type: number): number | boolean {
    const widths: Record<number, number> = {
      0: 1,
      1: 1,
      2: 2,
      3: 2,
      4: 4,
      5: 4,
      6: 4,
      7: 1,
      10: 8,
      11: 8,
      12: 8,
    };
    const width = widths[type];
    if (width === undefined) throw new GgufFormatError(`unknown metadata value type ${type}`);
    const at = this.need(width);
    this.pos += width;
    const b = this.buffer;
    switch (type) {
      case 0:
        return b.readUInt8(at);
      case 1:
        return b.readInt8(at);
      case 2:
        return b.readUInt16LE(at);
      case 3:
        return b.readInt16LE(at);
      case 4:
        return b.readUInt32LE(at);
      case 5:
        return b.readInt32LE(at);
      case 6:
        return b.readFloatLE(at);
      case 7:
        return b.readUInt8(at) !== 0;
      case 10:
        return Number(b.readBigUInt64LE(at));
      case 11:
        return Number(b.readBigInt64LE(at));
      default:
        return b.readDoubleLE(at);
    }
  }
  string(what: string, maxBytes: number = GGUF_LIMITS.maxStringBytes): string {
    const length = this.u64(`${what}'s length`);
    if (length > maxBytes)
      throw new GgufFormatError(`${what} claims ${length} bytes, over the limit of ${maxBytes}; refused`);
    const at = this.need(length);
    this.pos += length;
    return textDecoder.decode(this.buffer.subarray(at, at + length));
  }
}

function readValue(cursor: HeaderCursor, type: number, key: string, depth: number): GgufMetaValue {
  if (type === 8)
    return depth > 0 && key === TOKENS_KEY
      ? cursor.string(`a token of "${key}"`, GGUF_LIMITS.maxTokenBytes)
      : cursor.string(`metadata "${key}"`);
  if (type !== 9) return cursor.scalar(type);
  if (depth > 2) throw new GgufFormatError(`metadata "${key}" nests arrays too deep`);
  const itemType = cursor.u32();
  const count = cursor.u64(`metadata "${key}"'s item count`);
  if (count > GGUF_LIMITS.maxArrayItems)
    throw new GgufFormatError(
      `metadata "${key}" claims ${count} items, over the limit of ${GGUF_LIMITS.maxArrayItems}; refused`,
    );
  if (count > cursor.fileBytes - cursor.pos)
    throw new GgufFormatError(`metadata "${key}" claims ${count} items, more than the file holds; refused`);
  cursor.numItems += count;
  if (cursor.numItems > GGUF_LIMITS.maxMetadataItems)
    throw new GgufFormatError(
      `metadata arrays hold over ${GGUF_LIMITS.maxMetadataItems} items in all (at "${key}"); refused`,
    );
  const items: GgufMetaValue[] = new Array<GgufMetaValue>(count);
  for (let i = 0; i < count; i++) items[i] = readValue(cursor, itemType, key, depth + 1);
  return items;
}

function readTensorInfo(
  cursor: HeaderCursor,
  index: number,
): Omit<GgufTensorInfo, 'offset'> & { relOffset: number } {
  const name = cursor.string(`tensor ${index}'s name`);
  const numDims = cursor.u32();
  if (numDims === 0 || numDims > GGUF_LIMITS.maxDims)
    throw new GgufFormatError(`tensor "${name}" has ${numDims} dimensions`);
  const dims: number[] = [];
  for (let d = 0; d < numDims; d++) dims.push(cursor.u64(`tensor "${name}"'s dimension`));
  const typeId = cursor.u32();
  const type = ggmlTypeOf(typeId);
  if (!type)
    throw new GgufFormatError(`tensor "${name}" has ggml type ${typeId}, which First Frame does not know`);
  const relOffset = cursor.u64(`tensor "${name}"'s offset`);
  const numValues = dims.reduce((a, b) => a * b, 1);
  if (dims[0]! % type.blockValues !== 0)
    throw new GgufFormatError(`tensor "${name}" rows of ${dims[0]} are not whole ${type.name} blocks`);
  return { name, dims, type, relOffset, numBytes: ggmlBytesOf(type, numValues) };
}

/**
 * Reads one GGUF file's header. Throws GgufFormatError naming the problem (not a GGUF, an
 * unsupported version, a truncated or implausible header, tensors reaching past the file's end).
 */
export function readGgufHeader(file: string): GgufHeader {
  const fd = openSync(file, 'r');
  try {
    const fileBytes = fstatSync(fd).size;
    const cursor = new HeaderCursor(fd, fileBytes);
    if (fileBytes < 8 || cursor.u32() !== MAGIC)
      throw new GgufFormatError('is not a GGUF file (no GGUF magic)');
    const version = cursor.u32();
    if (version !== 2 && version !== 3)
      throw new GgufFormatError(`is GGUF version ${version}; First Frame reads versions 2 and 3`);
    const numTensors = cursor.u64('tensor count');
    const numKeys = cursor.u64('metadata count');
    if (numTensors > GGUF_LIMITS.maxTensors || numKeys > GGUF_LIMITS.maxMetadataKeys)
      throw new GgufFormatError(`claims ${numTensors} tensors and ${numKeys} metadata keys; refused`);
    const metadata = new Map<string, GgufMetaValue>();
    for (let i = 0; i < numKeys; i++) {
      const key = cursor.string(`metadata key ${i}`);
      metadata.set(key, readValue(cursor, cursor.u32(), key, 0));
    }
    const infos = Array.from({ length: numTensors }, (_, i) => readTensorInfo(cursor, i));
    const headerBytes = cursor.pos;
    const alignment = metadata.get('general.alignment') ?? DEFAULT_ALIGNMENT;
    if (typeof alignment !== 'number' || alignment <= 0 || alignment % 8 !== 0)
      throw new GgufFormatError(`general.alignment is ${String(alignment)}; expected a multiple of 8`);
    const dataOffset = Math.ceil(headerBytes / alignment) * alignment;
    const tensors = infos.map(({ relOffset, ...info }) => {
      const offset = dataOffset + relOffset;
      if (offset + info.numBytes > fileBytes)
        throw new GgufFormatError(
          `tensor "${info.name}" ends at byte ${offset + info.numBytes} but the file has ${fileBytes}: truncated`,
        );
      return { ...info, offset };
    });
    return { version, metadata, tensors, dataOffset, fileBytes, headerBytes };
  } finally {
    closeSync(fd);
  }
}
