/**
 * The one protobuf reader: a message's fields read from a file through a window (listing reads a
 * graph's structure and never loads a payload) or from bytes in memory (analysis and rewrites),
 * either as a cursor (`MessageReader`) or as a list of field spans whose values are read on demand
 * (so a rewrite copies unchanged fields verbatim). Writing is proto-writer.ts's.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Protobuf wire types this reader understands. */
export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** A length-delimited field ran past the end of its message or the file: the file is cut short. */
export class TruncatedProto extends Error {
  constructor(at: number, fileBytes: number) {
    super(`ends early: a field at byte ${at} runs past the end of the file (${fileBytes} bytes): truncated`);
    this.name = 'TruncatedProto';
  }
}

/** The bytes a message is read from: a file through a window, or bytes in memory. */
export interface ByteSource {
  readonly size: number;
  /** The byte at `at`. */
  byteAt(at: number): number;
  /** `[at, at + length)`: a view of bytes in memory, a copy of a file's. */
  slice(at: number, length: number): Uint8Array;
  /** What a field running past its message or the end throws: truncation for a file. */
  cutShort(at: number): Error;
}

/** Bytes in memory as a source: slices are views, and a field running past its message throws. */
export class MemoryBytes implements ByteSource {
  readonly size: number;

  constructor(readonly bytes: Uint8Array) {
    this.size = bytes.length;
  }

  byteAt(at: number): number {
    if (at >= this.size) throw this.cutShort(at);
    return this.bytes[at]!;
  }

  slice(at: number, length: number): Uint8Array {
    if (at + length > this.size) throw this.cutShort(at);
    return this.bytes.subarray(at, at + length);
  }

  cutShort(at: number): Error {
    return new Error(`field at byte ${at} runs past its message`);
  }
}

const WINDOW_BYTES = 64 << 10;

/**
 * Random-access reads of one file through a 64 KB window. Listing reads a graph's structure and
 * skips tensor payloads (`skip` only moves the cursor), so a 1 GB model costs a few small reads.
 */
export class FileWindow implements ByteSource {
  private readonly fd: number;
  readonly size: number;
  private window = new Uint8Array(0);
  private windowStart = 0;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
    this.size = fstatSync(this.fd).size;
  }

  /** The byte at `at` (reads a new window when needed). */
  byteAt(at: number): number {
    if (at < this.windowStart || at >= this.windowStart + this.window.length) this.load(at);
    return this.window[at - this.windowStart]!;
  }

  /** A copy of `[at, at + length)`. */
  slice(at: number, length: number): Uint8Array {
    if (at + length > this.size) throw new TruncatedProto(at, this.size);
    if (at < this.windowStart || at + length > this.windowStart + this.window.length) this.load(at, length);
    return this.window.slice(at - this.windowStart, at - this.windowStart + length);
  }

  cutShort(at: number): Error {
    return new TruncatedProto(at, this.size);
  }

  close(): void {
    closeSync(this.fd);
  }

  private load(at: number, minLength = 1): void {
    if (at >= this.size) throw new TruncatedProto(at, this.size);
    const length = Math.min(Math.max(WINDOW_BYTES, minLength), this.size - at);
    const buffer = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buffer, done, length - done, at + done);
      if (n === 0) throw new TruncatedProto(at + done, this.size);
      done += n;
    }
    this.window = buffer;
    this.windowStart = at;
  }
}

/** One field's key. */
export interface FieldHeader {
  field: number;
  wireType: number;
}

/** One field of a message: its number, wire type, and where it sits in the bytes. */
export interface FieldSpan extends FieldHeader {
  /** First byte of the field's key. */
  startAt: number;
  /** First byte of its value (after the length, for length-delimited fields). */
  valueAt: number;
  /** One past its last byte. */
  endAt: number;
}

/**
 * Reads the fields of one message, `[start, end)` of the source. Values are read on demand;
 * an unread field is skipped by its length, so payloads are never loaded.
 */
export class MessageReader {
  private at: number;

  constructor(
    private readonly source: ByteSource,
    start: number,
    private readonly end: number,
  ) {
    if (end > source.size) throw source.cutShort(start);
    this.at = start;
  }

  /** Every field left in the message, as spans; their values are left unread. */
  fields(): FieldSpan[] {
    const spans: FieldSpan[] = [];
    for (let span = this.nextField(); span; span = this.nextField()) spans.push(span);
    return spans;
  }

  /** The next field as a span, its value skipped unread; null at the end of the message. */
  nextField(): FieldSpan | null {
    if (this.at >= this.end) return null;
    const startAt = this.at;
    const key = this.varint();
    const wireType = key % 8;
    let valueAt = this.at;
    if (wireType === WIRE.bytes) {
      const length = this.varint();
      valueAt = this.at;
      this.advance(length);
    } else this.skip(wireType);
    return { field: Math.floor(key / 8), wireType, startAt, valueAt, endAt: this.at };
  }

  /** The next field's header, or null at the end of the message. */
  next(): FieldHeader | null {
    if (this.at >= this.end) return null;
    const key = this.varint();
    return { field: Math.floor(key / 8), wireType: key % 8 };
  }

  /** A varint as a number (exact up to 2^53, enough for sizes, dims and enums). */
  varint(): number {
    const small = this.smallVarint();
    return small ?? Number(BigInt.asUintN(64, this.bigVarint()));
  }

  /** A signed varint (two's complement int64), e.g. an axis of -1. */
  signedVarint(): number {
    const small = this.smallVarint();
    return small ?? Number(BigInt.asIntN(64, this.bigVarint()));
  }

  /** Fast path: a varint of at most 4 bytes (< 2^28) as a number; null (cursor unmoved) otherwise. */
  private smallVarint(): number | null {
    let value = 0;
    for (let i = 0; i < 4; i++) {
      if (this.at + i >= this.end) throw this.source.cutShort(this.at + i);
      const byte = this.source.byteAt(this.at + i);
      value += (byte & 0x7f) * 2 ** (7 * i);
      if (byte < 0x80) {
        this.at += i + 1;
        return value;
      }
    }
    return null;
  }

  private bigVarint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.at >= this.end) throw this.source.cutShort(this.at);
      const byte = this.source.byteAt(this.at++);
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
    throw new Error(`malformed varint at byte ${this.at}`);
  }

  /** A nested message's reader; this reader moves past it. */
  message(): MessageReader {
    const length = this.varint();
    const start = this.at;
    this.advance(length);
    return new MessageReader(this.source, start, start + length);
  }

  /** A length-delimited field as UTF-8 text. */
  text(): string {
    const length = this.varint();
    const bytes = this.source.slice(this.at, length);
    this.advance(length);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  /** Packed varints (e.g. `dims`, `ints`). */
  packedVarints(): number[] {
    return this.message().signedVarintsToEnd();
  }

  /** Signed varints up to the end of the message (the body of a packed field). */
  signedVarintsToEnd(): number[] {
    const values: number[] = [];
    while (this.at < this.end) values.push(this.signedVarint());
    return values;
  }

  /** Length of a length-delimited field, skipping its bytes. */
  skipBytes(): number {
    const length = this.varint();
    this.advance(length);
    return length;
  }

  /** Skips a field of any wire type. */
  skip(wireType: number): void {
    if (wireType === WIRE.varint) this.varint();
    else if (wireType === WIRE.fixed64) this.advance(8);
    else if (wireType === WIRE.bytes) this.skipBytes();
    else if (wireType === WIRE.fixed32) this.advance(4);
    else throw new Error(`unsupported protobuf wire type ${wireType} at byte ${this.at}`);
  }

  private advance(length: number): void {
    if (this.at + length > this.end) throw this.source.cutShort(this.at);
    this.at += length;
  }
}

/** The fields of the message in `[startAt, endAt)` of `source`, in order; throws on a cut-short field. */
export function fieldsOf(source: ByteSource, startAt = 0, endAt = source.size): FieldSpan[] {
  return new MessageReader(source, startAt, endAt).fields();
}

/** A reader over a length-delimited field's value (a submessage, or a packed run). */
function valueReader(source: ByteSource, span: FieldSpan): MessageReader {
  return new MessageReader(source, span.valueAt, span.endAt);
}

const decoder = new TextDecoder();

/** A length-delimited field's value as text. */
export function textOf(source: ByteSource, span: FieldSpan): string {
  return decoder.decode(source.slice(span.valueAt, span.endAt - span.valueAt));
}

/** A varint field's value. */
export function varintOf(source: ByteSource, span: FieldSpan): number {
  return valueReader(source, span).varint();
}

/** A signed (int64) varint field's value; an axis of -1 is ten bytes. */
export function signedVarintOf(source: ByteSource, span: FieldSpan): number {
  return valueReader(source, span).signedVarint();
}

/** A repeated int64 field's values: one value (unpacked) or the packed run this span holds. */
export function signedVarintsOf(source: ByteSource, span: FieldSpan): number[] {
  if (span.wireType === WIRE.varint) return [signedVarintOf(source, span)];
  return valueReader(source, span).signedVarintsToEnd();
}

/** A repeated float field's values: one value (unpacked fixed32) or the packed run this span holds. */
export function floatsOf(source: ByteSource, span: FieldSpan): number[] {
  const bytes = source.slice(span.valueAt, span.endAt - span.valueAt);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: number[] = [];
  for (let at = 0; at + 4 <= bytes.length; at += 4) values.push(view.getFloat32(at, true));
  return values;
}
