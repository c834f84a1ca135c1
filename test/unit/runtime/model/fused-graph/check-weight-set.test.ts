import { describe, expect, it } from 'vitest';
import {
  checkWeightSet,
  WeightSetError,
} from '../../../../../src-main/runtime/model/fused-graph/check-weight-set';
import type {
  BlockWeight,
  DecoderDims,
  DecoderWeightSet,
  FloatWeight,
} from '../../../../../src-main/runtime/model/fused-graph/weight-set';

const DIMS: DecoderDims = {
  numLayers: 1,
  hiddenSize: 32,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 8,
  intermediateSize: 48,
  vocabSize: 64,
  ropeTheta: 10000,
  ropeScaling: null,
  rmsNormEps: 1e-5,
  isTiedEmbedding: true,
  contextLength: 128,
};

function float(shape: number[]): FloatWeight {
  const count = shape.reduce((a, b) => a * b, 1);
  return { kind: 'float', dtype: 'float32', data: new Float32Array(count), shape, order: 'out-in' };
}

function blocks(numRows: number, numCols: number, bits: 4 | 8, blockSize = 16): BlockWeight {
  const numBlocks = Math.ceil(numCols / blockSize);
  return {
    kind: 'blocks',
    bits,
    blockSize,
    numRows,
    numCols,
    data: new Uint8Array((numRows * numBlocks * blockSize * bits) / 8),
    scales: new Float32Array(numRows * numBlocks),
    zeroPoints: null,
  };
}

function weightSet(): DecoderWeightSet {
  return {
    dims: DIMS,
    embedding: float([64, 32]),
    layers: [
      {
        inputNorm: float([32]),
        q: float([32, 32]),
        k: float([16, 32]),
        v: blocks(16, 32, 8),
        o: blocks(32, 32, 4),
        postAttentionNorm: float([32]),
        gate: float([48, 32]),
        up: float([48, 32]),
        down: blocks(32, 48, 4, 32),
      },
    ],
    finalNorm: float([32]),
    lmHead: null,
  };
}

function problemOf(set: DecoderWeightSet): WeightSetError | null {
  try {
    checkWeightSet(set);
    return null;
  } catch (error) {
    if (error instanceof WeightSetError) return error;
    throw error;
  }
}

describe('checkWeightSet', () => {
  it('accepts float and block weights mixed, a K not a multiple of the block (48 by 32) included', () => {
    expect(problemOf(weightSet())).toBeNull();
  });

  it('accepts a transposed (in-out) float matrix by its transposed shape', () => {
    const set = weightSet();
    set.layers[0]!.q = { ...float([32, 32]), shape: [32, 32], order: 'in-out' };
    set.layers[0]!.gate = { ...float([32, 48]), order: 'in-out' };
    expect(problemOf(set)).toBeNull();
  });

  it('names a projection whose shape disagrees with the dims', () => {
    const set = weightSet();
    set.layers[0]!.k = float([32, 32]);
    expect(problemOf(set)?.weight).toBe('layers.0.k');
  });

  it('names block data of the wrong length', () => {
    const set = weightSet();
    const o = blocks(32, 32, 4);
    set.layers[0]!.o = { ...o, data: o.data.subarray(1) };
    expect(problemOf(set)?.message).toMatch(/layers\.0\.o: data has/);
  });

  it('refuses an LM head beside a tied embedding, and a missing one beside an untied embedding', () => {
    expect(problemOf({ ...weightSet(), lmHead: float([64, 32]) })?.weight).toBe('lmHead');
    expect(problemOf({ ...weightSet(), dims: { ...DIMS, isTiedEmbedding: false } })?.weight).toBe('lmHead');
  });

  it('refuses a block embedding with zero points or a hidden size off its block', () => {
    const withZeros = { ...blocks(64, 32, 4), zeroPoints: new Uint8Array(64) };
    expect(problemOf({ ...weightSet(), embedding: withZeros })?.weight).toBe('embedding');
    expect(problemOf({ ...weightSet(), embedding: blocks(64, 32, 4, 64) })?.weight).toBe('embedding');
  });

  it('accepts q/k/v biases and per-head q/k norms of the right widths, and names one that is not', () => {
    const set = weightSet();
    set.layers[0]!.qkvBias = { q: float([32]), k: float([16]), v: float([16]) };
    set.layers[0]!.qkNorm = { q: float([8]), k: float([8]) };
    expect(problemOf(set)).toBeNull();
    set.layers[0]!.qkvBias = { q: float([32]), k: float([32]), v: float([16]) };
    expect(problemOf(set)?.weight).toBe('layers.0.qkvBias.k');
    set.layers[0]!.qkvBias = null;
    set.layers[0]!.qkNorm = { q: float([8]), k: float([16]) };
    expect(problemOf(set)?.weight).toBe('layers.0.qkNorm.k');
  });

  it('names a dimension that does not divide and a layer count that disagrees', () => {
    expect(problemOf({ ...weightSet(), dims: { ...DIMS, numKvHeads: 3 } })?.weight).toBe('dims.numKvHeads');
    expect(problemOf({ ...weightSet(), layers: [] })?.weight).toBe('layers');
  });
});
