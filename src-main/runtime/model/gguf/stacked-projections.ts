// Phi-3's converter stores a layer's q/k/v as one tensor (`attn_qkv`: the query rows, then the key
// rows, then the value rows) and its gate and up projections as one (`ffn_up`: the gate rows, then
// the up rows; llama.cpp's SwiGLU activates the first half and multiplies by the second). A ggml
// row is a contiguous run of whole blocks, so a range of rows of any type, block-quantized
// included, is a range of bytes: the parts are cut out of the bytes read and nothing is decoded.

import type { GgufSetTensor } from './gguf-files';
import type { TensorRead } from './gguf-tensor-reader';

/** How a file stores a layer's projections: q/k/v and gate/up each apart, or stacked in one tensor. */
export interface ProjectionLayout {
  isQkvStacked: boolean;
  isGateUpStacked: boolean;
}

/**
 * The file's layout: q/k/v stacked when layer 0 holds `attn_qkv` (llama.cpp loads phi3 either
 * way), gate/up stacked when the architecture always stores them so (phi3 has no `ffn_gate`).
 */
export function projectionLayoutOf(
  tensors: ReadonlyMap<string, GgufSetTensor>,
  isGateUpStacked: boolean,
): ProjectionLayout {
  return { isQkvStacked: tensors.has('blk.0.attn_qkv.weight'), isGateUpStacked };
}

/**
 * The rows of a [rows, cols] tensor (ggml dims [cols, rows]) cut into consecutive parts of
 * `rowCounts` rows each, every part a tensor of its own named `<name>[part]`. Throws when the
 * counts do not add up to the tensor's rows.
 */
export function splitRows(read: TensorRead, parts: ReadonlyArray<[string, number]>): TensorRead[] {
  const { tensor, bytes } = read;
  const [numCols, numRows] = tensor.dims as [number, number];
  const total = parts.reduce((sum, [, count]) => sum + count, 0);
  if (total !== numRows)
    throw new Error(`tensor ${tensor.name} has ${numRows} rows; its parts add up to ${total}`);
  const rowBytes = tensor.numBytes / numRows;
  let row = 0;
  return parts.map(([part, count]) => {
    const start = row * rowBytes;
    row += count;
    return {
      tensor: {
        ...tensor,
        name: `${tensor.name}[${part}]`,
        dims: [numCols, count],
        numBytes: count * rowBytes,
      },
      bytes: bytes.subarray(start, start + count * rowBytes),
    };
  });
}

type Read = (name: string) => TensorRead;

/** Layer `i`'s q, k and v as read: three tensors apart, or `attn_qkv`'s rows cut in three. */
export function qkvReads(
  i: number,
  layout: ProjectionLayout,
  dims: { numHeads: number; numKvHeads: number; headDim: number },
  read: Read,
): [TensorRead, TensorRead, TensorRead] {
  const at = (part: string) => `blk.${i}.${part}.weight`;
  if (!layout.isQkvStacked) return [read(at('attn_q')), read(at('attn_k')), read(at('attn_v'))];
  const kvWidth = dims.numKvHeads * dims.headDim;
  const parts: Array<[string, number]> = [
    ['q', dims.numHeads * dims.headDim],
    ['k', kvWidth],
    ['v', kvWidth],
  ];
  return splitRows(read(at('attn_qkv')), parts) as [TensorRead, TensorRead, TensorRead];
}

/** Layer `i`'s gate and up as read: two tensors apart, or `ffn_up`'s rows cut in two (gate first). */
export function gateUpReads(
  i: number,
  layout: ProjectionLayout,
  intermediateSize: number,
  read: Read,
): [TensorRead, TensorRead] {
  const at = (part: string) => `blk.${i}.${part}.weight`;
  if (!layout.isGateUpStacked) return [read(at('ffn_gate')), read(at('ffn_up'))];
  const parts: Array<[string, number]> = [
    ['gate', intermediateSize],
    ['up', intermediateSize],
  ];
  return splitRows(read(at('ffn_up')), parts) as [TensorRead, TensorRead];
}
