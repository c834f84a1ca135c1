import { readFileSync, statSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { median } from '../first-frame/decode';

/** ONNX element types an initializer read through a Cast may have: int8 (3), fp16 (10). */
const BYTES_PER_ELEMENT: Record<number, number> = { 3: 1, 10: 2 };

/**
 * This machine's single-thread read bandwidth (bytes/s): memcmp (Buffer.compare) of two equal
 * 512 MiB buffers, 1 GiB read per pass, several times the last-level cache; median of 5 warm
 * passes. memcmp was the fastest plain read loop tried here (memchr and a JS loop were slower).
 */
export function measureReadBandwidth(numBytes = 1024 ** 3): { bytesPerS: number; boundary: string } {
  // Filled, so no page is the shared zero page.
  const [a, b] = [Buffer.alloc(numBytes / 2, 0x5a), Buffer.alloc(numBytes / 2, 0x5a)];
  const passesMs: number[] = [];
  for (let pass = 0; pass < 6; pass++) {
    const startMs = performance.now();
    if (Buffer.compare(a, b) !== 0) throw new Error('bandwidth buffers changed under the bench');
    if (pass > 0) passesMs.push(performance.now() - startMs); // the first pass faults the pages in
  }
  return {
    bytesPerS: numBytes / (median(passesMs) / 1000),
    boundary: `Buffer.compare (memcmp) of two ${numBytes / 2 / 1024 ** 2} MiB buffers, one thread, median of 5 warm passes`,
  };
}

/**
 * Bytes of weights a decode step reads through our engine: every initializer as ONNX Runtime
 * executes it. An initializer that feeds a Cast (fp16 matrices, a converted GGUF's int8 scale
 * steps and fp16 factors) is counted at fp32 width, since ONNX Runtime folds the cast at session
 * creation and reads fp32 values; a factor multiplied into its steps (`X_factors` beside
 * `X_steps`, block-scales.ts) folds into the steps' fp32 tensor and is not counted again.
 */
export function onnxWeightBytesPerToken(onnxPath: string): number {
  const graph = onnxProto.onnx.ModelProto.decode(readFileSync(onnxPath)).graph;
  const castInputs = new Set((graph?.node ?? []).filter((n) => n.opType === 'Cast').map((n) => n.input?.[0]));
  const names = new Set((graph?.initializer ?? []).map((t) => t.name ?? ''));
  let total = 0;
  for (const tensor of graph?.initializer ?? []) {
    const name = tensor.name ?? '';
    if (name.endsWith('_factors') && names.has(name.replace(/_factors$/, '_steps'))) continue;
    // Weights in an external data file (a converted GGUF's) count by the length their entry names.
    const external = tensor.externalData?.find((entry) => entry.key === 'length')?.value;
    const numBytes = tensor.rawData?.length || Number(external ?? 0);
    const width = BYTES_PER_ELEMENT[tensor.dataType ?? 0];
    total += castInputs.has(name) && width ? (numBytes / width) * 4 : numBytes;
  }
  return total;
}

/** Bytes of weights llama.cpp reads per decode step: the GGUF file (its metadata is < 1 %). */
export const ggufWeightBytesPerToken = (ggufPath: string): number => statSync(ggufPath).size;

/** One engine against the roofline: bytes per token ÷ ITL, and that as a share of bandwidth. */
export function rooflineOf(weightBytesPerToken: number, itlMs: number | null, bandwidthBytesPerS: number) {
  const achieved = itlMs && itlMs > 0 ? weightBytesPerToken / (itlMs / 1000) : null;
  return {
    weight_bytes_per_token: weightBytesPerToken,
    itl_ms: itlMs,
    achieved_gb_per_s: achieved === null ? null : achieved / 1e9,
    share_of_read_bandwidth: achieved === null ? null : achieved / bandwidthBytesPerS,
    bandwidth_bound_itl_ms: (weightBytesPerToken / bandwidthBytesPerS) * 1000,
  };
}
