import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, MS_DOMAIN } from '../../../../src-main/runtime/model/fused-graph/graph-builder';

/**
 * The fact the fused runtime's K/V design rests on (docs/architecture.md, "Fused decoder
 * graphs"): GroupQueryAttention given a present over the past's own memory writes the new
 * columns there in place, but onnxruntime-node returns every fetched output as a copy, so fetching
 * present costs the whole past again. If this starts failing, the binding stopped copying and the
 * slot could let ONNX Runtime write its K/V in place instead of gathering the new columns.
 */
describe('onnxruntime-node and a pre-allocated present over the past', () => {
  it('writes the new K/V in place in the caller’s memory, and returns a copy of the whole tensor', async () => {
    const [numHeads, numKvHeads, headDim, width] = [2, 1, 16, 8];
    const g = new GraphBuilder();
    g.addInput('query', 'float32', [1, 1, (numHeads + 2 * numKvHeads) * headDim]);
    g.addInput('past_key', 'float32', [1, numKvHeads, width, headDim]);
    g.addInput('past_value', 'float32', [1, numKvHeads, width, headDim]);
    g.addInput('seqlens_k', 'int32', [1]);
    g.addInput('total_sequence_length', 'int32', []);
    g.addNode(
      'GroupQueryAttention',
      ['query', '', '', 'past_key', 'past_value', 'seqlens_k', 'total_sequence_length'],
      { num_heads: numHeads, kv_num_heads: numKvHeads },
      3,
      ['out', 'present_key', 'present_value'],
      MS_DOMAIN,
    );
    g.addOutput('out', 'float32', [1, 1, numHeads * headDim]);
    g.addOutput('present_key', 'float32', [1, numKvHeads, width, headDim]);
    g.addOutput('present_value', 'float32', [1, numKvHeads, width, headDim]);
    const session = await ort.InferenceSession.create(g.encodeModel('gqa', 17));
    const pastKey = new ort.Tensor('float32', new Float32Array(width * headDim), [1, 1, width, headDim]);
    const pastValue = new ort.Tensor('float32', new Float32Array(width * headDim), [1, 1, width, headDim]);
    const query = Float32Array.from({ length: 64 }, (_, i) => 1 + i);
    const outputs = await session.run(
      {
        query: new ort.Tensor('float32', query, [1, 1, 64]),
        past_key: pastKey,
        past_value: pastValue,
        seqlens_k: new ort.Tensor('int32', Int32Array.of(3), [1]),
        total_sequence_length: new ort.Tensor('int32', Int32Array.of(4), []),
      },
      { out: null, present_key: pastKey, present_value: pastValue },
    );
    await session.release();
    const newValue = Array.from(query.subarray(48, 64));
    // Column 3 (the fourth token) of the caller's own past now holds the new value, written in place.
    expect(Array.from((pastValue.data as Float32Array).subarray(3 * headDim, 4 * headDim))).toEqual(newValue);
    const returned = outputs['present_value']!.data as Float32Array;
    expect(Array.from(returned.subarray(3 * headDim, 4 * headDim))).toEqual(newValue);
    expect(returned.buffer).not.toBe((pastValue.data as Float32Array).buffer);
  });
});
