// Where a converted GGUF's bytes go: the converted graph's initializers grouped by what they hold
// (codes, scale steps and factors, float32 scales and offsets, float matrices, norms), the data
// file's alignment padding, beside the GGUF's own bytes per ggml type. `cli.ts bytes` prints it.

import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';

/** One row: what the bytes hold, and how many. */
export interface ByteRow {
  kind: string;
  numBytes: number;
}

/** What an initializer holds, from the names the fused writer gives (projections.ts, block-scales.ts). */
export function initializerKindOf(name: string): string {
  if (/\.q4$/.test(name)) return 'codes int4';
  if (/\.q8$/.test(name)) return 'codes int8';
  if (/_steps$/.test(name)) return 'scale/min steps int8';
  if (/_factors$/.test(name)) return 'scale/min factors fp16';
  if (/\.scales$/.test(name)) return 'scales fp32';
  if (/\.offsets$/.test(name)) return 'block offsets fp32';
  if (/\.fp16$/.test(name)) return 'float matrices fp16';
  return 'other (norms, float matrices, constants)';
}

/**
 * The converted graph `onnxPath`'s bytes by kind, largest first: its data file's initializers,
 * the data file's padding (each starts 4096-aligned) and the graph file itself (nodes and the
 * small constants kept inline); the rows add up to the two files' sizes.
 */
export function convertedByteTable(onnxPath: string): ByteRow[] {
  const graph = onnxProto.onnx.ModelProto.decode(readFileSync(onnxPath)).graph;
  const byKind = new Map<string, number>();
  const dataFiles = new Set<string>();
  let numExternal = 0;
  for (const tensor of graph?.initializer ?? []) {
    const entry = (key: string) => tensor.externalData?.find((e) => e.key === key)?.value;
    const location = entry('location');
    if (location) dataFiles.add(location);
    if (!location) continue; // inline: counted with the graph file
    const numBytes = Number(entry('length') ?? 0);
    numExternal += numBytes;
    const kind = initializerKindOf(tensor.name ?? '');
    byKind.set(kind, (byKind.get(kind) ?? 0) + numBytes);
  }
  const dataBytes = [...dataFiles].reduce(
    (sum, f) => sum + statSync(path.join(path.dirname(onnxPath), f)).size,
    0,
  );
  byKind.set('data file alignment padding', dataBytes - numExternal);
  byKind.set('graph file (nodes, small constants)', statSync(onnxPath).size);
  return [...byKind].map(([kind, numBytes]) => ({ kind, numBytes })).sort((a, b) => b.numBytes - a.numBytes);
}

/** Sum of a table's bytes. */
export const totalOf = (rows: readonly ByteRow[]): number => rows.reduce((sum, r) => sum + r.numBytes, 0);

/** The GGUF's tensor bytes per ggml type, largest first, and the rest of the file (header, padding). */
export function ggufByteTable(
  ggufPath: string,
  tensors: Iterable<{ type: { name: string }; numBytes: number }>,
): ByteRow[] {
  const byKind = new Map<string, number>();
  for (const tensor of tensors)
    byKind.set(tensor.type.name, (byKind.get(tensor.type.name) ?? 0) + tensor.numBytes);
  const rows = [...byKind].map(([kind, numBytes]) => ({ kind, numBytes }));
  rows.push({ kind: 'header, metadata, padding', numBytes: statSync(ggufPath).size - totalOf(rows) });
  return rows.sort((a, b) => b.numBytes - a.numBytes);
}
