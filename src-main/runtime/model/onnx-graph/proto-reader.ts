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

const WINDOW_BYTES = 64 << 10;

/**
 * Random-access reads of one file through a 64 KB window. Listing reads a graph's structure and
 * skips tensor payloads (`skip` only moves the cursor), so a 1 GB model costs a few small reads.
 */
export class FileWindow {
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

/** One field's key and where its value sits. */
export interface FieldHeader {
  field: number;
  wireType: number;
}

/**
 * Reads the fields of one message, `[start, end)` of the file. Values are read on demand;
 * an unread field is skipped by its length, so payloads are never loaded.
 */
export class MessageReader {
  private at: number;

  constructor(
    private readonly file: FileWindow,
    start: number,
    private readonly end: number,
  ) {
    if (end > file.size) throw new TruncatedProto(start, file.size);
    this.at = start;
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
      if (this.at + i >= this.end) throw new TruncatedProto(this.at + i, this.file.size);
      const byte = this.file.byteAt(this.at + i);
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
      if (this.at >= this.end) throw new TruncatedProto(this.at, this.file.size);
      const byte = this.file.byteAt(this.at++);
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
    return new MessageReader(this.file, start, start + length);
  }

  /** A length-delimited field as UTF-8 text. */
  text(): string {
    const length = this.varint();
    const bytes = this.file.slice(this.at, length);
    this.advance(length);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  /** Packed varints (e.g. `dims`, `ints`). */
  packedVarints(): number[] {
    const inner = this.message();
    const values: number[] = [];
    while (inner.at < inner.end) values.push(inner.signedVarint());
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
    if (this.at + length > this.end) throw new TruncatedProto(this.at, this.file.size);
    this.at += length;
  }
}
