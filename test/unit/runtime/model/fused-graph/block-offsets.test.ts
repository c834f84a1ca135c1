import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../../../../src-main/runtime/model/fused-graph/graph-builder';
import { FUSED_OPSET } from '../../../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type { BlockWeight } from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import {
  addPackedProjection,
  addProjection,
} from '../../../../../src-main/runtime/model/fused-graph/projections';
import { dequantize } from '../../../../../src-main/runtime/model/gguf/ggml-dequantize';
import { ggmlTypeOf } from '../../../../../src-main/runtime/model/gguf/ggml-types';
import { toMatMulBlocks } from '../../../../../src-main/runtime/model/gguf/to-matmul-blocks';

const NUM_ROWS = 8;
const NUM_COLS = 512;
const NUM_TOKENS = 3;
const TYPE_IDS: Record<string, number> = { Q4_0: 2, Q4_1: 3, Q5_1: 7, Q2_K: 10, Q4_K: 12, Q5_K: 13 };
/** Where each type keeps its half-float block scale and min (or Q4_1/Q5_1's added m). */
const HALF_FIELDS: Record<string, number[]> = {
  Q4_0: [0],
  Q4_1: [0, 2],
  Q5_1: [0, 2],
  Q2_K: [80, 82],
  Q4_K: [0, 2],
  Q5_K: [0, 2],
};

/** A repeatable pseudo-random sequence in [0, 1). */
function randoms(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Valid ggml blocks of `type`: random codes and sub-scales, half-float scales of 2^-10…2^-5 (mins of either sign). */
function randomBlocks(type: string, seed: number): Uint8Array {
  const { blockValues, blockBytes } = ggmlTypeOf(TYPE_IDS[type]!)!;
  const random = randoms(seed);
  const bytes = Uint8Array.from({ length: (NUM_ROWS * NUM_COLS * blockBytes) / blockValues }, () =>
    Math.floor(random() * 256),
  );
  for (let at = 0; at < bytes.length; at += blockBytes)
    for (const [i, field] of HALF_FIELDS[type]!.entries()) {
      const sign = i === 1 && random() < 0.5 ? 0x8000 : 0;
      const half = sign | ((5 + Math.floor(random() * 6)) << 10) | Math.floor(random() * 1024);
      bytes[at + field] = half & 255;
      bytes[at + field + 1] = half >> 8;
    }
  return bytes;
}

/** x [1, NUM_TOKENS, NUM_COLS] → y through projections the callback adds, run in ONNX Runtime. */
async function run(add: (builder: GraphBuilder) => string, x: Float32Array): Promise<Float32Array> {
  const builder = new GraphBuilder();
  builder.addInput('x', 'float32', [1, NUM_TOKENS, NUM_COLS]);
  const y = add(builder);
  builder.addOutput(y, 'float32', [1, NUM_TOKENS, 'out']);
  const session = await ort.InferenceSession.create(builder.encodeModel('offsets', FUSED_OPSET), {
    logSeverityLevel: 3,
  });
  try {
    const result = await session.run({ x: new ort.Tensor('float32', x, [1, NUM_TOKENS, NUM_COLS]) });
    return result[y]!.data as Float32Array;
  } finally {
    await session.release();
  }
}

/** x · Wᵀ in float64 for W [rows, NUM_COLS], and Σ|x·w| per output (the scale of its rounding). */
function reference(x: Float32Array, w: Float32Array): { y: Float64Array; size: Float64Array } {
  const numRows = w.length / NUM_COLS;
  const y = new Float64Array(NUM_TOKENS * numRows);
  const size = new Float64Array(NUM_TOKENS * numRows);
  for (let t = 0; t < NUM_TOKENS; t++)
    for (let n = 0; n < numRows; n++)
      for (let k = 0; k < NUM_COLS; k++) {
        const product = x[t * NUM_COLS + k]! * w[n * NUM_COLS + k]!;
        y[t * numRows + n] = y[t * numRows + n]! + product;
        size[t * numRows + n] = size[t * numRows + n]! + Math.abs(product);
      }
  return { y, size };
}

function expectClose(actual: Float32Array, expected: { y: Float64Array; size: Float64Array }): void {
  expect(actual.length).toBe(expected.y.length);
  const worst = Math.max(...actual.map((v, i) => Math.abs(v - expected.y[i]!) / expected.size[i]!));
  expect(worst).toBeLessThan(1e-5);
}

const random = randoms(7);
const X = Float32Array.from({ length: NUM_TOKENS * NUM_COLS }, () => random() * 2 - 1);
/** fp32 activations, so the only difference from x · W is float32 rounding. */
const FP32 = { accuracyLevel: 1, floatStorage: 'as-given' } as const;

describe('block offsets: affine ggml blocks through MatMulNBits plus block sums × offsets', () => {
  it.each(['Q4_K', 'Q5_K', 'Q2_K', 'Q4_1', 'Q5_1'])(
    '%s: the one-projection graph computes x · Wᵀ of ggml’s own dequantized W',
    async (type) => {
      const bytes = randomBlocks(type, type.charCodeAt(1) * 31 + type.length);
      const weight = toMatMulBlocks(type, bytes, NUM_ROWS, NUM_COLS);
      expect(weight.offsets).not.toBeNull();
      const y = await run((b) => addProjection(b, 'x', 'proj', weight, FP32, 'y'), X);
      expectClose(y, reference(X, dequantize(type, bytes, NUM_ROWS * NUM_COLS)));
    },
  );

  it('packs an affine part with a symmetric one (zero offsets for it), block sums taken once per input', async () => {
    const q4k = randomBlocks('Q4_K', 1);
    const q40 = randomBlocks('Q4_0', 2);
    const parts: BlockWeight[] = [
      toMatMulBlocks('Q4_K', q4k, NUM_ROWS, NUM_COLS),
      toMatMulBlocks('Q4_0', q40, NUM_ROWS, NUM_COLS),
    ];
    let numBlockMeans = 0;
    const y = await run((b) => {
      const packed = addPackedProjection(b, 'x', 'packed', parts, FP32);
      const again = addProjection(b, 'x', 'again', parts[0]!, FP32);
      numBlockMeans = (b.toGraph('g').node ?? []).filter((n) => n.opType === 'AveragePool').length;
      return b.op('Concat', [packed, again], { axis: -1 }, 'y');
    }, X);
    expect(numBlockMeans).toBe(1);
    const w = new Float32Array(3 * NUM_ROWS * NUM_COLS);
    w.set(dequantize('Q4_K', q4k, NUM_ROWS * NUM_COLS));
    w.set(dequantize('Q4_0', q40, NUM_ROWS * NUM_COLS), NUM_ROWS * NUM_COLS);
    w.set(dequantize('Q4_K', q4k, NUM_ROWS * NUM_COLS), 2 * NUM_ROWS * NUM_COLS);
    expectClose(y, reference(X, w));
  });
});
