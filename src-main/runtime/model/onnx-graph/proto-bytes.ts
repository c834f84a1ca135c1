/**
 * Protobuf wire format over bytes in memory, for rewriting a graph: a message is read as a list
 * of field spans (so unchanged fields are copied verbatim, payloads untouched) and new fields are
 * encoded from a few primitives. proto-reader.ts reads files through a window; this edits bytes.
 */
import { WIRE } from './proto-reader';

/** One field of a message: its number, wire type, and where it sits in the bytes. */
export interface FieldSpan {
  field: number;
  wireType: number;
  /** First byte of the field's key. */
  startAt: number;
  /** First byte of its value (after the length, for length-delimited fields). */
  valueAt: number;
  /** One past its last byte. */
  endAt: number;
}

function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length && i < at + 10; i++) {
    value += (bytes[i]! & 0x7f) * scale;
    scale *= 128;
    if ((bytes[i]! & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Error(`bad varint at byte ${at}`);
}

/** The fields of the message in `[startAt, endAt)` of `bytes`, in order; throws on a cut-short field. */
export function fieldsOf(bytes: Uint8Array, startAt = 0, endAt = bytes.length): FieldSpan[] {
  const fields: FieldSpan[] = [];
  let at = startAt;
  while (at < endAt) {
    const key = readVarint(bytes, at);
    const wireType = key.value % 8;
    const field = Math.floor(key.value / 8);
    let valueAt = key.next;
    let end: number;
    if (wireType === WIRE.varint) end = readVarint(bytes, valueAt).next;
    else if (wireType === WIRE.fixed64) end = valueAt + 8;
    else if (wireType === WIRE.fixed32) end = valueAt + 4;
    else if (wireType === WIRE.bytes) {
      const length = readVarint(bytes, valueAt);
      valueAt = length.next;
      end = valueAt + length.value;
    } else throw new Error(`unsupported wire type ${wireType} at byte ${at}`);
    if (end > endAt) throw new Error(`field at byte ${at} runs past its message`);
    fields.push({ field, wireType, startAt: at, valueAt, endAt: end });
    at = end;
  }
  return fields;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A length-delimited field's value as text. */
export function textOf(bytes: Uint8Array, span: FieldSpan): string {
  return decoder.decode(bytes.subarray(span.valueAt, span.endAt));
}

/** A varint field's value. */
export function varintOf(bytes: Uint8Array, span: FieldSpan): number {
  return readVarint(bytes, span.valueAt).value;
}

/** A varint read as two's complement int64 (an axis of -1 is ten bytes), exact below 2^53. */
function readSignedVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0n;
  for (let i = at, shift = 0n; i < bytes.length && i < at + 10; i++, shift += 7n) {
    value |= BigInt(bytes[i]! & 0x7f) << shift;
    if ((bytes[i]! & 0x80) === 0) return { value: Number(BigInt.asIntN(64, value)), next: i + 1 };
  }
  throw new Error(`bad varint at byte ${at}`);
}

/** A signed (int64) varint field's value. */
export function signedVarintOf(bytes: Uint8Array, span: FieldSpan): number {
  return readSignedVarint(bytes, span.valueAt).value;
}

/** A repeated int64 field's values: one value (unpacked) or the packed run this span holds. */
export function signedVarintsOf(bytes: Uint8Array, span: FieldSpan): number[] {
  if (span.wireType === WIRE.varint) return [signedVarintOf(bytes, span)];
  const values: number[] = [];
  for (let at = span.valueAt; at < span.endAt;) {
    const read = readSignedVarint(bytes, at);
    values.push(read.value);
    at = read.next;
  }
  return values;
}

/** A repeated float field's values: one value (unpacked fixed32) or the packed run this span holds. */
export function floatsOf(bytes: Uint8Array, span: FieldSpan): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: number[] = [];
  for (let at = span.valueAt; at + 4 <= span.endAt; at += 4) values.push(view.getFloat32(at, true));
  return values;
}

function varintBytes(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 128) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

/** Concatenates byte pieces into one array (one allocation). */
export function concatBytes(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A length-delimited field whose value is `pieces` (a submessage, a string, raw bytes). */
export function bytesField(field: number, pieces: readonly Uint8Array[]): Uint8Array[] {
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return [Uint8Array.from([...varintBytes(field * 8 + WIRE.bytes), ...varintBytes(length)]), ...pieces];
}

/** A string field. */
export function textField(field: number, text: string): Uint8Array {
  return concatBytes(bytesField(field, [encoder.encode(text)]));
}

/** A non-negative varint field. */
export function varintField(field: number, value: number): Uint8Array {
  return Uint8Array.from([...varintBytes(field * 8 + WIRE.varint), ...varintBytes(value)]);
}

/** A submessage field built from encoded fields. */
export function messageField(field: number, fields: readonly Uint8Array[]): Uint8Array {
  return concatBytes(bytesField(field, fields));
}
