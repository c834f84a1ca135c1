import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import {
  addPresentDeltas,
  NEW_COLUMN_INDEX,
} from '../../../../../src-main/runtime/model/onnx-graph/present-deltas';
import { GraphBuilder, MS_DOMAIN } from '../../../../../src-main/runtime/model/fused-graph/graph-builder';

const ROWS = 2;
const PAST = 3;
const NEW = 2;

/** present.0.key = Concat(past, fresh) along the columns; input_ids only sets how many columns are new. */
function toyDecoder(opset = 17): Uint8Array {
  const g = new GraphBuilder();
  g.addInput('input_ids', 'int64', ['rows', 'new']);
  g.addInput('past_key_values.0.key', 'float32', ['rows', 1, 'past', 2]);
  g.addInput('fresh', 'float32', ['rows', 1, 'new', 2]);
  g.op('Concat', ['past_key_values.0.key', 'fresh'], { axis: 2 }, 'present.0.key');
  g.addOutput('present.0.key', 'float32', ['rows', 1, 'total', 2]);
  return g.encodeModel('toy', opset);
}

async function run(bytes: Uint8Array, fetches?: string[]): Promise<Record<string, ort.Tensor>> {
  const session = await ort.InferenceSession.create(bytes);
  const floats = (n: number, base: number) => Float32Array.from({ length: n }, (_, i) => base + i);
  const feeds = {
    input_ids: new ort.Tensor('int64', new BigInt64Array(ROWS * NEW), [ROWS, NEW]),
    'past_key_values.0.key': new ort.Tensor('float32', floats(ROWS * PAST * 2, 0), [ROWS, 1, PAST, 2]),
    fresh: new ort.Tensor('float32', floats(ROWS * NEW * 2, 100), [ROWS, 1, NEW, 2]),
  };
  const outputs = fetches ? await session.run(feeds, fetches) : await session.run(feeds);
  await session.release();
  return outputs;
}

describe('addPresentDeltas (outputs holding only the new tokens’ K/V)', () => {
  it('adds present_new.N.key with the last input_ids-length columns of present, present unchanged', async () => {
    const original = toyDecoder();
    const rewritten = addPresentDeltas(original);
    if (!('bytes' in rewritten)) throw new Error(rewritten.skipped);
    const before = await run(original);
    const after = await run(rewritten.bytes);
    expect(Array.from(after['present.0.key']!.data as Float32Array)).toEqual(
      Array.from(before['present.0.key']!.data as Float32Array),
    );
    const delta = after['present_new.0.key']!;
    expect(delta.dims).toEqual([ROWS, 1, NEW, 2]);
    expect(Array.from(delta.data as Float32Array)).toEqual(
      Array.from({ length: ROWS * NEW * 2 }, (_, i) => 100 + i),
    );
    const onlyDelta = await run(rewritten.bytes, ['present_new.0.key']);
    expect(Object.keys(onlyDelta)).toEqual(['present_new.0.key']);
  });

  it('gathers a GroupQueryAttention graph’s new columns where each row’s own length puts them', async () => {
    const [numHeads, numKvHeads, headDim, width] = [2, 1, 16, 4];
    const g = new GraphBuilder();
    g.addInput('input_ids', 'int64', ['rows', 'new']);
    g.addInput('query', 'float32', ['rows', 'new', (numHeads + 2 * numKvHeads) * headDim]);
    g.addInput('past_key_values.0.key', 'float32', ['rows', numKvHeads, 'past', headDim]);
    g.addInput('past_key_values.0.value', 'float32', ['rows', numKvHeads, 'past', headDim]);
    g.addInput('seqlens_k', 'int32', ['rows']);
    g.addInput('total_sequence_length', 'int32', []);
    const attention = ['query', '', '', 'past_key_values.0.key', 'past_key_values.0.value'];
    g.addNode(
      'GroupQueryAttention',
      [...attention, 'seqlens_k', 'total_sequence_length'],
      { num_heads: numHeads, kv_num_heads: numKvHeads },
      3,
      ['context', 'present.0.key', 'present.0.value'],
      MS_DOMAIN,
    );
    for (const name of ['present.0.key', 'present.0.value'])
      g.addOutput(name, 'float32', ['rows', numKvHeads, 'total', headDim]);
    const rewritten = addPresentDeltas(g.encodeModel('gqa', 17));
    if (!('bytes' in rewritten)) throw new Error(rewritten.skipped);
    const session = await ort.InferenceSession.create(rewritten.bytes);
    const floats = (n: number, base: number) => Float32Array.from({ length: n }, (_, i) => base + i / 8);
    const past = () => new ort.Tensor('float32', floats(2 * width * headDim, 0), [2, 1, width, headDim]);
    // Row 0 holds 3 tokens, row 1 one: their new ones land in columns 3 and 1.
    const outputs = await session.run({
      input_ids: new ort.Tensor('int64', new BigInt64Array(2), [2, 1]),
      query: new ort.Tensor('float32', floats(2 * 64, 50), [2, 1, 64]),
      'past_key_values.0.key': past(),
      'past_key_values.0.value': past(),
      seqlens_k: new ort.Tensor('int32', Int32Array.of(3, 1), [2]),
      total_sequence_length: new ort.Tensor('int32', Int32Array.of(4), []),
      [NEW_COLUMN_INDEX]: new ort.Tensor('int64', BigInt64Array.of(3n, 1n), [2, 1, 1, 1]),
    });
    await session.release();
    const present = outputs['present.0.value']!.data as Float32Array;
    const delta = outputs['present_new.0.value']!;
    expect(delta.dims).toEqual([2, 1, 1, headDim]);
    const column = (row: number, col: number) =>
      Array.from(present.subarray((row * width + col) * headDim, (row * width + col + 1) * headDim));
    const data = delta.data as Float32Array;
    expect(Array.from(data.subarray(0, headDim))).toEqual(column(0, 3));
    expect(Array.from(data.subarray(headDim))).toEqual(column(1, 1));
    expect(column(1, 1)).not.toEqual(column(1, 3));
  });

  it('leaves a graph alone when it has them already, its opset predates Slice with inputs, or it has no present', () => {
    const rewritten = addPresentDeltas(toyDecoder());
    if (!('bytes' in rewritten)) throw new Error(rewritten.skipped);
    expect(addPresentDeltas(rewritten.bytes)).toEqual({
      skipped: 'the graph already has present_new outputs',
    });
    expect(addPresentDeltas(toyDecoder(10))).toEqual({ skipped: 'opset 10 is older than 11' });
    const g = new GraphBuilder();
    g.addInput('input_ids', 'int64', ['rows', 'new']);
    g.op('Identity', ['input_ids'], {}, 'logits');
    g.addOutput('logits', 'int64', ['rows', 'new']);
    expect(addPresentDeltas(g.encodeModel('no-past', 17))).toEqual({
      skipped: 'the graph has no present.N.key/value outputs',
    });
  });
});
