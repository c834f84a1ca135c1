import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, MS_DOMAIN } from '../../../../src-main/runtime/model/fused-graph/graph-builder';
import { float32ToHalfInto, halfArrayToFloat32 } from '../../../../src-main/runtime/model/float16';
import {
  ELEMENT_TYPE,
  loadBoundOrt,
} from '../../../../src-main/runtime/slot-worker/ort-binding/bound-library';
import type {
  NativeBoundSession,
  NativeSessionConfig,
} from '../../../../src-main/runtime/slot-worker/ort-binding/bound-library';
import { maxAbs, maxAbsDifference } from '../../../support/float-arrays';

const bound = loadBoundOrt();
/** Two pool threads, so the kernel's work items run on ONNX Runtime's intra-op pool. */
const SESSION_CONFIG: NativeSessionConfig = {
  intraOpNumThreads: 2,
  interOpNumThreads: 1,
  graphOptimizationLevel: 99,
  logSeverityLevel: 3,
  configEntries: [],
  groupedAttention: true,
};
const isRequired = process.env['FF_REQUIRE_NATIVE'] === '1';

/** One GroupQueryAttention call: its shape, attributes and each row's tokens before it. */
interface Case {
  name: string;
  numHeads: number;
  numKvHeads: number;
  headSize: number;
  rotaryHalf: number;
  numNew: number;
  /** Tokens each row held before this call (all 0: a first prompt). */
  pastLengths: number[];
  bufferLength: number;
  isPacked?: boolean;
  isHalf?: boolean;
  attributes?: Record<string, number | { float: number }>;
}

const CASES: Case[] = [
  {
    name: 'a first prompt',
    numHeads: 4,
    numKvHeads: 2,
    headSize: 16,
    rotaryHalf: 8,
    numNew: 5,
    pastLengths: [0],
    bufferLength: 8,
  },
  {
    name: 'a decode step of two rows of different lengths',
    numHeads: 6,
    numKvHeads: 2,
    headSize: 32,
    rotaryHalf: 16,
    numNew: 1,
    pastLengths: [37, 20],
    bufferLength: 40,
  },
  {
    name: 'a prompt that continues a past (40 keys, two query blocks)',
    numHeads: 4,
    numKvHeads: 1,
    headSize: 64,
    rotaryHalf: 16,
    numNew: 9,
    pastLengths: [31],
    bufferLength: 48,
  },
  {
    name: 'packed QKV, interleaved RoPE, a softcap and a local window',
    numHeads: 4,
    numKvHeads: 2,
    headSize: 16,
    rotaryHalf: 8,
    numNew: 1,
    pastLengths: [21],
    bufferLength: 24,
    isPacked: true,
    attributes: { rotary_interleaved: 1, softcap: { float: 2 }, local_window_size: 6, scale: { float: 0.3 } },
  },
  {
    name: 'a windowed, capped prompt after a past (each row its own first key)',
    numHeads: 6,
    numKvHeads: 2,
    headSize: 32,
    rotaryHalf: 16,
    numNew: 12,
    pastLengths: [29],
    bufferLength: 48,
    attributes: { softcap: { float: 5 }, local_window_size: 10 },
  },
  {
    name: 'a long decode step of one K/V head, split over its keys (a 5-key row’s second split empty)',
    numHeads: 4,
    numKvHeads: 1,
    headSize: 64,
    rotaryHalf: 16,
    numNew: 1,
    pastLengths: [1100, 4],
    bufferLength: 1104,
  },
  {
    name: 'a split decode step with a softcap, a window and smooth softmax',
    numHeads: 4,
    numKvHeads: 1,
    headSize: 32,
    rotaryHalf: 8,
    numNew: 1,
    pastLengths: [1500],
    bufferLength: 1504,
    attributes: { softcap: { float: 3 }, local_window_size: 700, smooth_softmax: 1 },
  },
  {
    name: 'float16 tensors',
    numHeads: 4,
    numKvHeads: 2,
    headSize: 32,
    rotaryHalf: 16,
    numNew: 3,
    pastLengths: [12],
    bufferLength: 16,
    isHalf: true,
  },
];

/** Deterministic values in [-1, 1). */
function values(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

/** The case's graph: one GroupQueryAttention node, its inputs and outputs the graph's own. */
function graphOf(c: Case): Uint8Array {
  const type = c.isHalf ? 'float16' : 'float32';
  const g = new GraphBuilder();
  const rows = c.pastLengths.length;
  const qWidth = (c.isPacked ? c.numHeads + 2 * c.numKvHeads : c.numHeads) * c.headSize;
  const kvDims = [rows, c.numKvHeads, c.bufferLength, c.headSize];
  g.addInput('query', type, [rows, c.numNew, qWidth]);
  if (!c.isPacked) {
    g.addInput('key', type, [rows, c.numNew, c.numKvHeads * c.headSize]);
    g.addInput('value', type, [rows, c.numNew, c.numKvHeads * c.headSize]);
  }
  g.addInput('past_key', type, kvDims);
  g.addInput('past_value', type, kvDims);
  g.addInput('seqlens_k', 'int32', [rows]);
  g.addInput('total_sequence_length', 'int32', []);
  g.addInput('cos_cache', type, [c.bufferLength, c.rotaryHalf]);
  g.addInput('sin_cache', type, [c.bufferLength, c.rotaryHalf]);
  g.addNode(
    'GroupQueryAttention',
    [
      'query',
      c.isPacked ? '' : 'key',
      c.isPacked ? '' : 'value',
      'past_key',
      'past_value',
      'seqlens_k',
      'total_sequence_length',
      'cos_cache',
      'sin_cache',
    ],
    { num_heads: c.numHeads, kv_num_heads: c.numKvHeads, do_rotary: 1, ...c.attributes },
    3,
    ['output', 'present_key', 'present_value'],
    MS_DOMAIN,
  );
  g.addOutput('output', type, [rows, c.numNew, c.numHeads * c.headSize]);
  g.addOutput('present_key', type, kvDims);
  g.addOutput('present_value', type, kvDims);
  return g.encodeModel('grouped-attention-case', 17);
}

/** The case's feeds as float32 (converted to float16 at the edges for a half case). */
function feedsOf(c: Case): Record<string, { data: Float32Array | Int32Array; dims: number[] }> {
  const rows = c.pastLengths.length;
  const qWidth = (c.isPacked ? c.numHeads + 2 * c.numKvHeads : c.numHeads) * c.headSize;
  const kvWidth = c.numKvHeads * c.headSize;
  const kvDims = [rows, c.numKvHeads, c.bufferLength, c.headSize];
  const kvCount = kvDims.reduce((a, b) => a * b, 1);
  // RoPE caches as a model has them: cos and sin of position × frequency.
  const cos = new Float32Array(c.bufferLength * c.rotaryHalf);
  const sin = new Float32Array(cos.length);
  for (let p = 0; p < c.bufferLength; p++)
    for (let i = 0; i < c.rotaryHalf; i++) {
      const angle = p / 10000 ** (i / c.rotaryHalf);
      cos[p * c.rotaryHalf + i] = Math.cos(angle);
      sin[p * c.rotaryHalf + i] = Math.sin(angle);
    }
  const total = Math.max(...c.pastLengths) + c.numNew;
  return {
    query: { data: values(rows * c.numNew * qWidth, 1), dims: [rows, c.numNew, qWidth] },
    ...(c.isPacked
      ? {}
      : {
          key: { data: values(rows * c.numNew * kvWidth, 2), dims: [rows, c.numNew, kvWidth] },
          value: { data: values(rows * c.numNew * kvWidth, 3), dims: [rows, c.numNew, kvWidth] },
        }),
    past_key: { data: values(kvCount, 4), dims: kvDims },
    past_value: { data: values(kvCount, 5), dims: kvDims },
    seqlens_k: { data: Int32Array.from(c.pastLengths, (past) => past + c.numNew - 1), dims: [rows] },
    total_sequence_length: { data: Int32Array.of(total), dims: [] },
    cos_cache: { data: cos, dims: [c.bufferLength, c.rotaryHalf] },
    sin_cache: { data: sin, dims: [c.bufferLength, c.rotaryHalf] },
  };
}

function toHalf(data: Float32Array): Uint16Array {
  const out = new Uint16Array(data.length);
  float32ToHalfInto(data, out);
  return out;
}

/** ONNX Runtime's own kernel through onnxruntime-node: output and present (past copied in). */
async function runOrtNode(c: Case, bytes: Uint8Array): Promise<Record<string, Float32Array>> {
  const session = await ort.InferenceSession.create(bytes);
  const feeds: Record<string, ort.Tensor> = {};
  for (const [name, { data, dims }] of Object.entries(feedsOf(c))) {
    if (data instanceof Int32Array) feeds[name] = new ort.Tensor('int32', data, dims);
    else
      feeds[name] = c.isHalf
        ? new ort.Tensor('float16', toHalf(data), dims)
        : new ort.Tensor('float32', data, dims);
  }
  const results = await session.run(feeds);
  await session.release();
  const out: Record<string, Float32Array> = {};
  for (const name of ['output', 'present_key', 'present_value'])
    out[name] = c.isHalf
      ? halfArrayToFloat32(results[name]!.data as Uint16Array)
      : (results[name]!.data as Float32Array);
  return out;
}

/**
 * Binds the case's feeds to a bound session, present bound to the past's own memory as a slot
 * binds it; returns its output, present key and present value as float32, read after a run.
 */
function bindCase(session: NativeBoundSession, c: Case): () => Record<string, Float32Array> {
  const arrays: Record<string, Float32Array | Uint16Array | Int32Array> = {};
  const element = c.isHalf ? ELEMENT_TYPE.float16 : ELEMENT_TYPE.float32;
  const feeds = feedsOf(c);
  for (const [name, { data, dims }] of Object.entries(feeds)) {
    const isInt = data instanceof Int32Array;
    arrays[name] = isInt || !c.isHalf ? data : toHalf(data);
    session.bindInput(name, arrays[name]!, dims, isInt ? ELEMENT_TYPE.int32 : element);
  }
  const outDims = [c.pastLengths.length, c.numNew, c.numHeads * c.headSize];
  const numOut = outDims.reduce((a, b) => a * b, 1);
  const output = c.isHalf ? new Uint16Array(numOut) : new Float32Array(numOut);
  session.bindOutput('output', output, outDims, element);
  session.bindOutput('present_key', arrays['past_key']!, feeds['past_key']!.dims, element);
  session.bindOutput('present_value', arrays['past_value']!, feeds['past_value']!.dims, element);
  const asFloat = (a: Float32Array | Uint16Array | Int32Array) =>
    a instanceof Uint16Array ? halfArrayToFloat32(a) : (a as Float32Array);
  return () => ({
    output: asFloat(output),
    present_key: asFloat(arrays['past_key']!),
    present_value: asFloat(arrays['past_value']!),
  });
}

/** The addon's kernel on the bound path, one run of the case. */
async function runGrouped(
  c: Case,
  bytes: Uint8Array,
): Promise<{ attention: string; out: Record<string, Float32Array> }> {
  if (!bound.isAvailable) throw new Error(bound.reason);
  const session = await bound.create(bytes, SESSION_CONFIG);
  try {
    const read = bindCase(session, c);
    await session.run();
    return { attention: session.attention, out: read() };
  } finally {
    session.release();
  }
}

/** Rows [0, past + new) of each (row, K/V head): the part of present both kernels define. */
function filledRows(c: Case, present: Float32Array): number[] {
  const out: number[] = [];
  c.pastLengths.forEach((past, row) => {
    for (let head = 0; head < c.numKvHeads; head++) {
      const start = (row * c.numKvHeads + head) * c.bufferLength * c.headSize;
      out.push(...present.subarray(start, start + (past + c.numNew) * c.headSize));
    }
  });
  return out;
}

describe.skipIf(!bound.isAvailable && !isRequired)(
  'the grouped attention kernel against ONNX Runtime’s GroupQueryAttention',
  () => {
    it.each(CASES.map((c) => [c.name, c] as const))('gives %s the same output and K/V', async (_name, c) => {
      const bytes = graphOf(c);
      const expected = await runOrtNode(c, bytes);
      const actual = await runGrouped(c, bytes);
      expect(actual.attention).toBe('grouped');
      const tolerance = c.isHalf ? 4e-3 : 2e-5;
      expect(maxAbsDifference(actual.out['output']!, expected['output']!)).toBeLessThan(
        tolerance * Math.max(1, maxAbs(expected['output']!)),
      );
      for (const name of ['present_key', 'present_value'])
        expect(
          maxAbsDifference(filledRows(c, actual.out[name]!), filledRows(c, expected[name]!)),
        ).toBeLessThan(tolerance);
    });

    it('refuses a row longer than its K/V buffer with an error naming the kernel; the same session runs the next call', async () => {
      if (!bound.isAvailable) throw new Error(bound.reason);
      const c = CASES[1]!;
      const bytes = graphOf(c);
      const session = await bound.create(bytes, SESSION_CONFIG);
      try {
        const read = bindCase(session, c);
        const tooLong = Int32Array.of(c.bufferLength + 5, 3);
        session.bindInput('seqlens_k', tooLong, [2], ELEMENT_TYPE.int32);
        await expect(session.run()).rejects.toThrow(/First Frame's grouped kernel.*seqlens_k\[0\]/);
        session.bindInput('seqlens_k', feedsOf(c)['seqlens_k']!.data, [2], ELEMENT_TYPE.int32);
        await session.run();
        const expected = await runOrtNode(c, bytes);
        expect(maxAbsDifference(read()['output']!, expected['output']!)).toBeLessThan(
          2e-5 * Math.max(1, maxAbs(expected['output']!)),
        );
      } finally {
        session.release();
      }
    });
  },
);
