import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import {
  KEEP_INPUT,
  keepLastLogits,
} from '../../../../../src-main/runtime/model/onnx-graph/keep-last-logits';
import type { KeepPlacement } from '../../../../../src-main/runtime/model/onnx-graph/keep-last-logits';
import { GraphBuilder } from '../../../../../src-main/runtime/model/fused-graph/graph-builder';

const ROWS = 2;
const POSITIONS = 5;
const HIDDEN = 4;
const VOCAB = 6;

/** hidden [rows, positions, hidden] → head (MatMul by a weight, then `tail`) → logits. */
function toyModel(tail: 'cast' | 'tanh', opset = 17): Uint8Array {
  const g = new GraphBuilder();
  g.addInput('hidden', 'float32', ['rows', 'positions', HIDDEN]);
  const weight = Float32Array.from({ length: HIDDEN * VOCAB }, (_, i) => Math.sin(i + 1));
  g.addInitializer('head.weight', 'float32', [HIDDEN, VOCAB], new Uint8Array(weight.buffer));
  const scores = g.op('MatMul', ['hidden', 'head.weight']);
  g.op(tail === 'cast' ? 'Cast' : 'Tanh', [scores], tail === 'cast' ? { to: 1 } : {}, 'logits');
  g.addOutput('logits', 'float32', ['rows', 'positions', VOCAB]);
  return g.encodeModel('toy', opset);
}

const hidden = new ort.Tensor(
  'float32',
  Float32Array.from({ length: ROWS * POSITIONS * HIDDEN }, (_, i) => Math.cos(i)),
  [ROWS, POSITIONS, HIDDEN],
);

async function logitsOf(bytes: Uint8Array, keep?: bigint): Promise<ort.Tensor> {
  const session = await ort.InferenceSession.create(bytes);
  const feeds: Record<string, ort.Tensor> = { hidden };
  if (keep !== undefined) feeds[KEEP_INPUT] = new ort.Tensor('int64', BigInt64Array.of(keep), []);
  const outputs = await session.run(feeds);
  await session.release();
  return outputs['logits']!;
}

/** Row `row`'s last `kept` positions of full logits [rows, positions, vocab]. */
function lastPositions(full: ort.Tensor, kept: number): number[] {
  const data = Array.from(full.data as Float32Array);
  return Array.from({ length: ROWS }, (_, row) =>
    data.slice((row * POSITIONS + POSITIONS - kept) * VOCAB, (row + 1) * POSITIONS * VOCAB),
  ).flat();
}

/** `original` rewritten, checked to have its slice at `placement`. */
function rewrittenAt(original: Uint8Array, placement: KeepPlacement): Uint8Array {
  const rewritten = keepLastLogits(original);
  expect('placement' in rewritten && rewritten.placement).toBe(placement);
  if (!('bytes' in rewritten)) throw new Error('not rewritten');
  return rewritten.bytes;
}

describe('keepLastLogits (a logits-to-keep input for graphs without one)', () => {
  it('slices the hidden states before a MatMul head: each row keeps its last k positions, 0 keeps all', async () => {
    const original = toyModel('cast');
    const rewritten = rewrittenAt(original, 'before-head');
    const full = await logitsOf(original);
    for (const kept of [1, 3]) {
      const last = await logitsOf(rewritten, BigInt(kept));
      expect(last.dims).toEqual([ROWS, kept, VOCAB]);
      expect(Array.from(last.data as Float32Array)).toEqual(lastPositions(full, kept));
    }
    const all = await logitsOf(rewritten, 0n);
    expect(Array.from(all.data as Float32Array)).toEqual(Array.from(full.data as Float32Array));
  });

  it('slices the logits themselves when what follows the head is not known to act per position', async () => {
    const original = toyModel('tanh');
    const rewritten = rewrittenAt(original, 'on-logits');
    const full = await logitsOf(original);
    const last = await logitsOf(rewritten, 1n);
    expect(last.dims).toEqual([ROWS, 1, VOCAB]);
    expect(Array.from(last.data as Float32Array)).toEqual(lastPositions(full, 1));
  });

  it('leaves a graph alone when it already has the input or its opset predates Slice with inputs', () => {
    const rewritten = rewrittenAt(toyModel('cast'), 'before-head');
    expect(keepLastLogits(rewritten)).toEqual({
      skipped: 'the graph already takes a logits-to-keep input',
    });
    expect(keepLastLogits(toyModel('cast', 9))).toEqual({ skipped: 'opset 9 is older than 11' });
  });

  it('leaves logits alone unless they are declared [rows, positions, vocab] (axis 1 would not be positions)', () => {
    const g = new GraphBuilder();
    g.addInput('hidden', 'float32', ['rows', HIDDEN]);
    const weight = new Float32Array(HIDDEN * VOCAB).fill(0.5);
    g.addInitializer('head.weight', 'float32', [HIDDEN, VOCAB], new Uint8Array(weight.buffer));
    g.op('MatMul', ['hidden', 'head.weight'], {}, 'logits');
    g.addOutput('logits', 'float32', ['rows', VOCAB]);
    expect(keepLastLogits(g.encodeModel('flat', 17))).toEqual({
      skipped: '"logits" is not declared as [rows, positions, vocab]',
    });
  });

  it('refuses bytes that are not a model instead of writing a broken one', () => {
    expect(() => keepLastLogits(Uint8Array.of(0x0a, 0x7f, 0x01))).toThrow(/runs past its message/);
  });
});
