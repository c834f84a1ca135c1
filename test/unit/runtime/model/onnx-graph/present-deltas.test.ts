import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { addPresentDeltas } from '../../../../../src-main/runtime/model';
import { GraphBuilder } from '../../../../../src-main/runtime/model/fused-graph';

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

  it('leaves a GroupQueryAttention graph alone: it places new K/V after each row’s tokens, not at the end', () => {
    const g = new GraphBuilder();
    g.addInput('input_ids', 'int64', ['rows', 'new']);
    g.addInput('past_key_values.0.key', 'float32', ['rows', 1, 'past', 2]);
    g.op('GroupQueryAttention', ['past_key_values.0.key'], {}, 'present.0.key');
    g.addOutput('present.0.key', 'float32', ['rows', 1, 'total', 2]);
    expect(addPresentDeltas(g.encodeModel('gqa', 17))).toEqual({
      skipped: 'GroupQueryAttention places new K/V by sequence length, not at the end',
    });
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
