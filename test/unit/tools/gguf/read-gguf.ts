// An independent GGUF v3 reader for the tests: parses what the writer wrote, byte by byte,
// following the format's specification (not the writer's code).

import { readFileSync } from 'node:fs';

/** A parsed GGUF file: metadata by key, tensor descriptors, and each tensor's bytes. */
export interface ParsedGguf {
  version: number;
  metadata: Map<string, unknown>;
  tensors: Array<{ name: string; ne: number[]; type: number; offset: number; data: Uint8Array }>;
  dataStart: number;
}

export function readGguf(path: string, alignment = 32): ParsedGguf {
  const bytes = readFileSync(path);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const str = () => {
    const length = u64();
    at += length;
    return bytes.subarray(at - length, at).toString('utf8');
  };
  const value = (type: number): unknown => {
    switch (type) {
      case 4:
        return u32();
      case 5:
        return ((at += 4), view.getInt32(at - 4, true));
      case 6:
        return ((at += 4), view.getFloat32(at - 4, true));
      case 7:
        return ((at += 1), view.getUint8(at - 1) === 1);
      case 8:
        return str();
      case 9: {
        const elementType = u32();
        return Array.from({ length: u64() }, () => value(elementType));
      }
      default:
        throw new Error(`value type ${type} not expected in these files`);
    }
  };
  if (u32() !== 0x46554747) throw new Error('not a GGUF file');
  const version = u32();
  const numTensors = u64();
  const numKv = u64();
  const metadata = new Map<string, unknown>();
  for (let i = 0; i < numKv; i++) {
    const key = str();
    metadata.set(key, value(u32()));
  }
  const descriptors = Array.from({ length: numTensors }, () => {
    const name = str();
    const ne = Array.from({ length: u32() }, () => u64());
    return { name, ne, type: u32(), offset: u64() };
  });
  const dataStart = Math.ceil(at / alignment) * alignment;
  const tensors = descriptors.map((d, i) => {
    const end = i + 1 < descriptors.length ? descriptors[i + 1]!.offset : bytes.length - dataStart;
    return { ...d, data: bytes.subarray(dataStart + d.offset, dataStart + end) };
  });
  return { version, metadata, tensors, dataStart };
}
