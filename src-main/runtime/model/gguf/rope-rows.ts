// llama.cpp's converter permutes each head's Q and K rows from Hugging Face's rotate-half layout
// (first half of the head's dims, then the second) to the adjacent pairs its LLAMA rope rotates
// (`convert_hf_to_gguf.py` permute: reshape(heads, 2, D/2, in).swapaxes(1, 2)). The fused graph's
// GroupQueryAttention rotates halves, so the rows go back: whole rows move, so quantized rows move
// with their scales, zero points, offsets and factored scales, and nothing is decoded.

import type { FactoredScales, MatrixWeight } from '../fused-graph/weight-set';

/** For each Hugging Face row, the GGUF row it comes from (heads of `headDim` rows). */
export function unpermutedRowOrder(numHeads: number, headDim: number): Int32Array {
  const order = new Int32Array(numHeads * headDim);
  const half = headDim / 2;
  for (let h = 0; h < numHeads; h++)
    for (let s = 0; s < 2; s++)
      for (let i = 0; i < half; i++) order[h * headDim + s * half + i] = h * headDim + 2 * i + s;
  return order;
}

/** `weight` with its rows in Hugging Face order (rows as `unpermutedRowOrder` says). */
export function unpermuteRows(weight: MatrixWeight, numHeads: number, headDim: number): MatrixWeight {
  const order = unpermutedRowOrder(numHeads, headDim);
  if (weight.kind === 'float') {
    const rowLength = weight.order === 'out-in' ? weight.shape[1]! : null;
    if (rowLength === null) throw new Error('in-out float matrices are not permuted by row');
    return { ...weight, data: moveRows(weight.data, rowLength, order) } as MatrixWeight;
  }
  const numBlocks = Math.ceil(weight.numCols / weight.blockSize);
  const blockBytes = (weight.blockSize * weight.bits) / 8;
  return {
    ...weight,
    data: moveRows(weight.data, numBlocks * blockBytes, order),
    scales: moveRows(weight.scales, numBlocks, order),
    zeroPoints: weight.zeroPoints
      ? moveRows(weight.zeroPoints, Math.ceil((numBlocks * weight.bits) / 8), order)
      : null,
    offsets: weight.offsets ? moveRows(weight.offsets, numBlocks, order) : null,
    factored: weight.factored ? movedFactored(weight.factored, numBlocks, order) : null,
  };
}

/** Factored scales with their rows moved like the blocks (steps per block, factors per group). */
function movedFactored(factored: FactoredScales, numBlocks: number, order: Int32Array): FactoredScales {
  const numGroups = numBlocks / factored.groupSize;
  const steps = (values: Int8Array | null) => values && moveRows(values, numBlocks, order);
  const { mins } = factored;
  return {
    groupSize: factored.groupSize,
    scaleSteps: steps(factored.scaleSteps),
    scaleFactors: moveRows(factored.scaleFactors, numGroups, order),
    mins: mins && {
      middle: mins.middle,
      steps: steps(mins.steps),
      factors: moveRows(mins.factors, numGroups, order),
    },
  };
}

function moveRows<T extends Uint8Array | Int8Array | Uint16Array | Float32Array>(
  data: T,
  rowLength: number,
  order: Int32Array,
): T {
  const out = new (data.constructor as new (n: number) => T)(data.length);
  order.forEach((from, to) =>
    out.set(data.subarray(from * rowLength, (from + 1) * rowLength), to * rowLength),
  );
  return out;
}
