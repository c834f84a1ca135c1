/**
 * Protobuf wire format written from a few primitives, for rewriting a graph: new fields are
 * encoded here and every unchanged field is copied from the model's bytes as it is (the spans
 * proto-reader.ts reads).
 */
import { WIRE } from './proto-reader';

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

const encoder = new TextEncoder();

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
