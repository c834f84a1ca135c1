import { describe, expect, it } from 'vitest';
import { ropeInverseFrequencies, scaledInverseFrequencies } from '../../../../../src-main/runtime/model/rope';
import type { DecoderDims } from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import { ropeParamsOf } from '../../../../../src-main/runtime/model/fuse-at-load/rope-params';
import { FusionRefused } from '../../../../../src-main/runtime/model/fuse-at-load/refusal';

const HEAD_DIM = 64;
const DIMS = { headDim: HEAD_DIM, ropeTheta: 500_000, ropeScaling: null, contextLength: 8 } as DecoderDims;

function tablesOf(inverse: Float32Array, numPositions: number) {
  const half = inverse.length;
  const cos = new Float32Array(numPositions * half);
  const sin = new Float32Array(numPositions * half);
  for (let p = 0; p < numPositions; p++)
    for (let i = 0; i < half; i++) {
      cos[p * half + i] = Math.cos(Math.fround(p * inverse[i]!));
      sin[p * half + i] = Math.sin(Math.fround(p * inverse[i]!));
    }
  return { kind: 'tables' as const, cos, sin, numPositions };
}

describe('RoPE parameters read from a graph', () => {
  it('gives the plain base when the frequencies are plain', () => {
    const inverse = ropeInverseFrequencies(HEAD_DIM, 500_000);
    expect(ropeParamsOf({ kind: 'frequencies', inverse }, HEAD_DIM, 'rotary')).toEqual({
      ropeTheta: 500_000,
      ropeScaling: null,
    });
  });

  it('expresses scaled frequencies (llama3) as the base with per-frequency divisors that give them back', () => {
    const scaling = {
      type: 'llama3',
      factor: 8,
      lowFreqFactor: 1,
      highFreqFactor: 4,
      originalContextLength: 8192,
    } as const;
    const inverse = scaledInverseFrequencies({ ...DIMS, ropeScaling: scaling });
    const params = ropeParamsOf({ kind: 'frequencies', inverse }, HEAD_DIM, 'rotary');
    expect(params.ropeTheta).toBe(500_000);
    expect(params.ropeScaling?.type).toBe('frequency-factors');
    const back = scaledInverseFrequencies({ ...DIMS, ...params });
    back.forEach((f, i) => expect(Math.abs(f - inverse[i]!) / inverse[i]!).toBeLessThan(2e-7));
  });

  it('reads the frequencies back from cos/sin tables of 4,096 positions', () => {
    const inverse = ropeInverseFrequencies(HEAD_DIM, 10_000);
    expect(ropeParamsOf(tablesOf(inverse, 4096), HEAD_DIM, 'rotary')).toEqual({
      ropeTheta: 10_000,
      ropeScaling: null,
    });
  });

  it('refuses a table that is not cos/sin of position × a frequency', () => {
    const tables = tablesOf(ropeInverseFrequencies(HEAD_DIM, 10_000), 64);
    const at = 40 * (HEAD_DIM / 2) + 3;
    tables.cos[at] = tables.cos[at]! + 0.1;
    expect(() => ropeParamsOf(tables, HEAD_DIM, 'rotary')).toThrow(FusionRefused);
    expect(() => ropeParamsOf(tables, HEAD_DIM, 'rotary')).toThrow('at position 40');
  });
});
