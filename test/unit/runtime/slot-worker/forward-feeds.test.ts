import type * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { ForwardFeeds } from '../../../../src-main/runtime/slot-worker/forward-feeds';
import { KvBatch, SPARE_COLUMNS } from '../../../../src-main/runtime/slot-worker/kv-batch';
import type { ForwardKv } from '../../../../src-main/runtime/slot-worker/kv-batch';
import type { DecoderIo } from '../../../../src-main/runtime/model/decoder-io';
import type { KvGeometry } from '../../../../src-main/runtime/model/kv-geometry';

const GEOMETRY: KvGeometry = { numLayers: 2, numKvHeads: 1, headDim: 2, kvDtype: 'float32', rows: 'start' };
const FUSED_IO: DecoderIo = {
  kvDtype: 'float32',
  logitsDtype: 'float32',
  hasPositionIds: true,
  logitsToKeepInput: 'logits_to_keep',
  hasUseCacheBranch: false,
  kvRows: 'start',
  hasLengthInputs: true,
};
const PASTS = [
  'past_key_values.0.key',
  'past_key_values.0.value',
  'past_key_values.1.key',
  'past_key_values.1.value',
];

/** The new columns of a forward adding `numNew` tokens to one row: each tensor filled with `value`. */
function fresh(numNew: number, value: number): ForwardKv {
  return { form: 'new', tensors: PASTS.map(() => new Float32Array(numNew * GEOMETRY.headDim).fill(value)) };
}

/** A one-row batch after a 3-token prefill and one decode step (so it has spare columns). */
function decodingBatch(): KvBatch {
  return KvBatch.empty(GEOMETRY, ['a']).advanced(fresh(3, 1), 3).advanced(fresh(1, 2), 1);
}

const ids = BigInt64Array.of(7n);

describe('ForwardFeeds', () => {
  it('feeds every layer’s past from the batch’s own arrays, with its width', () => {
    const batch = decodingBatch();
    const feeds = new ForwardFeeds(FUSED_IO, GEOMETRY.numLayers, false).of(batch, ids, 1, 'last');
    PASTS.forEach((name, i) => {
      expect(feeds[name]!.data).toBe(batch.tensors[i]);
      expect(feeds[name]!.dims).toEqual([1, 1, 4 + SPARE_COLUMNS, 2]);
    });
  });

  it('reuses the past’s tensors while a decode appends in place, and makes new ones after a relayout', () => {
    const feeds = new ForwardFeeds(FUSED_IO, GEOMETRY.numLayers, false);
    const batch = decodingBatch();
    const first = feeds.of(batch, ids, 1, 'last');
    const appended = batch.advanced(fresh(1, 3), 1);
    const second = feeds.of(appended, ids, 1, 'last');
    for (const name of PASTS) expect(second[name]).toBe(first[name]);
    // The appended column is in the reused tensor's data: the same memory, written in place.
    expect(Array.from((second[PASTS[0]!]!.data as Float32Array).subarray(8, 10))).toEqual([3, 3]);
    const relaid = appended.advanced(fresh(SPARE_COLUMNS, 4), SPARE_COLUMNS);
    const third = feeds.of(relaid, ids, 1, 'last');
    for (const name of PASTS) {
      expect(third[name]).not.toBe(second[name]);
      expect(third[name]!.dims).toEqual([1, 1, relaid.width, 2]);
    }
  });

  it('feeds each forward’s own lengths and positions, never the last one’s', () => {
    const feeds = new ForwardFeeds(FUSED_IO, GEOMETRY.numLayers, false);
    const batch = decodingBatch();
    feeds.of(batch, ids, 1, 'last');
    const next = feeds.of(batch.advanced(fresh(1, 3), 1), ids, 1, 'last');
    expect(Array.from(next['seqlens_k']!.data as Int32Array)).toEqual([5]);
    expect(Array.from(next['total_sequence_length']!.data as Int32Array)).toEqual([6]);
    expect(Array.from(next['position_ids']!.data as BigInt64Array)).toEqual([5n]);
    expect(next['input_ids']!.data).toBe(ids);
  });

  it('asks for the last position’s logits or all of them', () => {
    const feeds = new ForwardFeeds(FUSED_IO, GEOMETRY.numLayers, false);
    const keep = (feed: Record<string, ort.Tensor>) =>
      Array.from(feed['logits_to_keep']!.data as BigInt64Array);
    expect(keep(feeds.of(decodingBatch(), ids, 1, 'last'))).toEqual([1n]);
    expect(keep(feeds.of(decodingBatch(), ids, 1, 'all'))).toEqual([0n]);
  });
});
