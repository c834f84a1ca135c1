import type { KvBatch } from './kv-batch';

/**
 * What a graph is fed about a batch's K/V for a forward adding `numNew` tokens per row: the
 * attention mask (or GroupQueryAttention's lengths), each row's positions, and where each row's
 * new columns land. Pure array code, derived from the batch's rows and its alignment.
 */

/**
 * attention_mask [rows, width + numNew] (end-aligned: 0 over padding and spare columns, 1 elsewhere),
 * or [rows, numColumns + numNew] (start-aligned: 1 over each row's tokens and its new ones).
 */
export function attentionMaskOf(batch: KvBatch, numNew: number): { mask: BigInt64Array; width: number } {
  if (batch.geometry.rows === 'start') {
    const width = batch.numColumns + numNew;
    const mask = new BigInt64Array(batch.rows.length * width);
    batch.rows.forEach((row, r) => mask.fill(1n, r * width, r * width + row.numTokens + numNew));
    return { mask, width };
  }
  const width = batch.width + numNew;
  const mask = new BigInt64Array(batch.rows.length * width).fill(1n);
  batch.rows.forEach((row, r) => {
    mask.fill(0n, r * width, r * width + row.numPad);
    mask.fill(0n, r * width + batch.numColumns, r * width + batch.width);
  });
  return { mask, width };
}

/** position_ids [rows, numNew]: each row continues its own count. */
export function positionIdsOf(batch: KvBatch, numNew: number): BigInt64Array {
  const positions = new BigInt64Array(batch.rows.length * numNew);
  batch.rows.forEach((row, r) => {
    for (let j = 0; j < numNew; j++) positions[r * numNew + j] = BigInt(row.numTokens + j);
  });
  return positions;
}

/**
 * GroupQueryAttention's lengths: `seqlens_k` (each row's tokens after the forward, minus one) and
 * `total_sequence_length` (the longest row's), for start-aligned rows.
 */
export function sequenceLengthsOf(batch: KvBatch, numNew: number): { seqlensK: Int32Array; total: number } {
  const seqlensK = Int32Array.from(batch.rows, (row) => row.numTokens + numNew - 1);
  return { seqlensK, total: batch.numColumns + numNew };
}

/**
 * The column of every row's every new token, [rows, K/V heads, numNew, 1] (the gathered delta
 * outputs' index, present-deltas.ts): right after the row's own tokens.
 */
export function newColumnIndexOf(batch: KvBatch, numNew: number): BigInt64Array {
  const { numKvHeads } = batch.geometry;
  const index = new BigInt64Array(batch.rows.length * numKvHeads * numNew);
  batch.rows.forEach((row, r) => {
    for (let head = 0; head < numKvHeads; head++)
      for (let j = 0; j < numNew; j++)
        index[(r * numKvHeads + head) * numNew + j] = BigInt(row.numPad + row.numTokens + j);
  });
  return index;
}
