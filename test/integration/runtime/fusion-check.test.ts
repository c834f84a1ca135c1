import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFusedGraph } from '../../../src-main/runtime/slot-worker/fusion-check';
import type { FusionCheckSpec } from '../../../src-main/runtime/slot-worker/fusion-check';
import { decoderIoOf } from '../../../src-main/runtime/model/decoder-io';
import { fuseDecoder } from '../../../src-main/runtime/model/fuse-at-load/fuse';
import { recognizeDecoder } from '../../../src-main/runtime/model/fuse-at-load/recognize';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import { readGraphSummary } from '../../../src-main/runtime/model/onnx-graph/graph-summary';
import { loadGraph } from '../../support/fusion-graphs';
import { BUNDLED_MODEL_ID, naiveBundledModelsDir } from '../../support/models';

// The bundled model's naive twin (fp16 weights, as exported layer by layer), as a user would bring it.
const naive = loadGraph(
  'naive bundled',
  path.join(naiveBundledModelsDir(), BUNDLED_MODEL_ID),
  'onnx/model.onnx',
);

/** The check a slot's first load runs on the naive bundled model, against `fused`. */
function specOf(fused: Uint8Array, isExact: boolean): FusionCheckSpec {
  const { shape } = naive.hints;
  const io = decoderIoOf(readGraphSummary(path.join(naive.dir, naive.file)), shape, 0);
  return {
    original: { bytes: naive.bytes, externalData: naive.externalData },
    io,
    fused,
    geometry: { ...shape, kvDtype: io.kvDtype, rows: io.kvRows },
    vocabSize: shape.vocabSize,
    isExact,
    numThreads: 1,
    canSpinThreads: true,
    provider: 'cpu',
  };
}

function rewrite(): Extract<ReturnType<typeof fuseDecoder>, { kind: 'fused' }> {
  const fused = fuseDecoder(naive.bytes, naive.externalData, naive.hints);
  if (fused.kind !== 'fused') throw new Error(`the naive bundled model did not fuse: ${fused.kind}`);
  return fused;
}

describe('the fusion check on the naive bundled model holds one session at a time', () => {
  it('accepts the rewrite, with the original released before the fused graph is built', async () => {
    const fused = rewrite();
    const check = await checkFusedGraph(specOf(fused.bytes, fused.isExact));
    expect(check).toMatchObject({ isAccepted: true, reason: null, numPeakSessions: 1 });
    expect(check.agreement.numCompared).toBe(12);
    // Both graphs' decode steps were profiled although their sessions never lived together.
    expect(check.stepNodes!.fused).toBeLessThan(check.stepNodes!.original / 2);
  });

  it('refuses a corrupted fused file ONNX Runtime cannot build, with its error', async () => {
    const fused = rewrite();
    const corrupted = fused.bytes.slice(0, fused.bytes.length >> 1);
    const check = await checkFusedGraph(specOf(corrupted, fused.isExact));
    expect(check).toMatchObject({ isAccepted: false, numPeakSessions: 1, stepNodes: null });
    expect(check.reason).toMatch(/^the fused graph did not run: \S/);
  });

  it('refuses a wrong rewrite (another RoPE base) on its greedy ids', async () => {
    const recognition = recognizeDecoder(naive.bytes, naive.externalData, naive.hints);
    if (recognition.kind !== 'fusable') throw new Error('the naive bundled model did not fuse');
    const { set } = recognition;
    const wrong = writeFusedDecoder(
      { ...set, dims: { ...set.dims, ropeTheta: 50 } },
      { accuracyLevel: recognition.accuracyLevel, floatStorage: 'as-given' },
    );
    const check = await checkFusedGraph(specOf(wrong, recognition.isExact));
    expect(check).toMatchObject({ isAccepted: false, numPeakSessions: 1 });
    expect(check.reason).toMatch(/^its greedy ids agree at \d+ of 12 positions, under the 90% needed/);
  });
});
