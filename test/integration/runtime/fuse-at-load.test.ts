import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { fuseAtLoad } from '../../../src-main/runtime/slot-worker/fuse-at-load';
import type { FusionJob } from '../../../src-main/runtime/slot-worker/fuse-at-load';
import { checkFusedGraph } from '../../../src-main/runtime/slot-worker/fusion-check';
import { FUSION_OUTCOME_FILE, fusionCacheKey } from '../../../src-main/runtime/slot-worker/fusion-cache';
import { decoderIoOf } from '../../../src-main/runtime/model/decoder-io';
import { FUSION_CHECK_LIMITS } from '../../../src-main/runtime/model/fuse-at-load/outcome';
import { recognizeDecoder } from '../../../src-main/runtime/model/fuse-at-load/recognize';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import { readGraphSummary } from '../../../src-main/runtime/model/onnx-graph/graph-summary';
import { writeLayoutModel } from '../../../tools/onnx-llama/layouts';
import {
  editGraph,
  FUSION_SEED,
  loadGraph,
  naiveFixtures,
  withHiddenSlidingWindow,
  withLayerNorm,
  withProjectionBias,
  withQkvBiases,
} from '../../support/fusion-graphs';
import type { LoadedGraph } from '../../support/fusion-graphs';
import {
  withGatheredRopeTables,
  withNegatedRotateHalf,
  withReciprocalNorms,
  withSkipNorms,
} from '../../support/exporter-forms';
import { readModelView } from '../../../src-main/runtime/model/onnx-graph/graph-view';

const root = mkdtempSync(path.join(tmpdir(), 'ff-fuse-at-load-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fixtures = naiveFixtures(root);
const plain = fixtures.find((g) => g.name === 'plain')!;

/** The job a slot's load would run for `graph` (bytes replaced by `bytes` when given). */
function jobOf(graph: LoadedGraph, graphCacheDir: string | null = null, bytes = graph.bytes): FusionJob {
  const io = decoderIoOf(readGraphSummary(path.join(graph.dir, graph.file)), graph.hints.shape, 0);
  const { numLayers, numKvHeads, headDim } = graph.hints.shape;
  return {
    file: graph.file,
    original: { bytes, externalData: graph.externalData },
    io,
    geometry: { numLayers, numKvHeads, headDim, kvDtype: io.kvDtype, rows: io.kvRows },
    hints: graph.hints,
    modelRevision: `test-${graph.name}-${bytes.length}`,
    provider: 'cpu',
    numThreads: 1,
    canSpinThreads: true,
    graphCacheDir,
  };
}

describe('load-time fusion checked against the original graph', () => {
  it.each(fixtures.map((g) => [g.name, g] as const))('%s fuses and passes the check', async (_, graph) => {
    const { outcome, fused } = await fuseAtLoad(jobOf(graph));
    expect(outcome).toMatchObject({ status: 'fused', nodesPerLayer: 10, isFromCache: false });
    if (outcome.status !== 'fused') return;
    const { agreement } = outcome;
    console.log(
      `${graph.name}: ${agreement.numEqual}/${agreement.numCompared} equal greedy ids, max logit difference ${agreement.maxLogitDiff}`,
    );
    // float32 weights and K/V: every greedy id the same; otherwise at least the stated share.
    const isFloat32 = !['fp16-past', 'q4', 'q8', 'q4-asymmetric'].includes(graph.name);
    expect(agreement.isExact).toBe(isFloat32);
    if (isFloat32) expect(agreement.numEqual).toBe(agreement.numCompared);
    else
      expect(agreement.numEqual / agreement.numCompared).toBeGreaterThanOrEqual(
        FUSION_CHECK_LIMITS.minAgreement,
      );
    expect(fused).toBeInstanceOf(Uint8Array);
  });

  it('refuses a fused graph whose greedy ids differ at float32 (wrong RoPE base)', async () => {
    const recognition = recognizeDecoder(plain.bytes, [], plain.hints);
    if (recognition.kind !== 'fusable') throw new Error('plain did not fuse');
    const { set } = recognition;
    const wrong = writeFusedDecoder({ ...set, dims: { ...set.dims, ropeTheta: 50 } });
    const job = jobOf(plain);
    const check = await checkFusedGraph({ ...job, fused: wrong, vocabSize: 4096, isExact: true });
    expect(check.isAccepted).toBe(false);
    expect(check.reason).toMatch(/^its greedy ids differ at \d+ of 12 positions with float32 weights/);
  });

  it('a graph whose mask hides a sliding window fails the check and runs as exported', async () => {
    const bytes = editGraph(plain.bytes, withHiddenSlidingWindow(3));
    const { outcome, fused } = await fuseAtLoad(jobOf(plain, null, bytes));
    expect(outcome).toMatchObject({
      status: 'as-exported',
      part: 'check',
      reason: expect.stringMatching(/^its greedy ids differ/) as string,
    });
    expect(fused).toBeNull();
  });

  it('a Qwen2-style graph (q, k and v biases) fuses with every greedy id the same, its biases in the fused graph', async () => {
    const bytes = editGraph(plain.bytes, withQkvBiases);
    const job = jobOf(plain, null, bytes);
    const { outcome } = await fuseAtLoad(job);
    expect(outcome).toMatchObject({
      status: 'fused',
      agreement: { numEqual: 12, numCompared: 12, isExact: true },
    });
    if (outcome.status !== 'fused') return;
    // The same weights fused without the biases are far off: the check above compared biased graphs.
    const recognition = recognizeDecoder(bytes, [], plain.hints);
    if (recognition.kind !== 'fusable') throw new Error('the biased graph did not fuse');
    const { set } = recognition;
    const unbiased = writeFusedDecoder({
      ...set,
      layers: set.layers.map((layer) => ({ ...layer, qkvBias: null })),
    });
    const check = await checkFusedGraph({ ...job, fused: unbiased, vocabSize: 4096, isExact: true });
    console.log(
      `q/k/v biases: max logit difference ${outcome.agreement.maxLogitDiff} fused with them, ${check.agreement.maxLogitDiff} without`,
    );
    expect(outcome.agreement.maxLogitDiff!).toBeLessThan(1e-4);
    expect(check.agreement.maxLogitDiff!).toBeGreaterThan(1e-2);
  });

  it.each([
    [
      'an o_proj bias',
      withProjectionBias('layers.0.self_attn.o_proj', 64),
      'layers.0',
      /^its projection of \S*layers\.0\.self_attn\.o_proj\S* has a bias \(the Add "[^"]+"/,
    ],
    ['a LayerNorm', withLayerNorm(64), 'layers.0.input_layernorm', /\S/],
  ] as const)('a graph with %s is refused with the reason and still runs', async (_, edit, part, reason) => {
    const bytes = editGraph(plain.bytes, edit);
    const { outcome, fused } = await fuseAtLoad(jobOf(plain, null, bytes));
    expect(outcome).toMatchObject({
      status: 'as-exported',
      part,
      reason: expect.stringMatching(reason) as string,
      agreement: null,
    });
    expect(fused).toBeNull();
    const session = await ort.InferenceSession.create(bytes);
    const past = (layer: number, kind: string) => [
      `past_key_values.${layer}.${kind}`,
      new ort.Tensor('float32', new Float32Array(0), [1, 2, 0, 16]),
    ];
    const feeds = Object.fromEntries([
      ['input_ids', new ort.Tensor('int64', BigInt64Array.of(1n, 2n), [1, 2])],
      ['attention_mask', new ort.Tensor('int64', BigInt64Array.of(1n, 1n), [1, 2])],
      ['position_ids', new ort.Tensor('int64', BigInt64Array.of(0n, 1n), [1, 2])],
      ...[0, 1].flatMap((layer) => [past(layer, 'key'), past(layer, 'value')]),
    ]);
    const { logits } = await session.run(feeds, ['logits']);
    expect(logits!.dims).toEqual([1, 2, 4096]);
    await session.release();
  });

  it('leaves a graph that already runs GroupQueryAttention alone', async () => {
    const dir = path.join(root, 'already-fused');
    writeLayoutModel({ layout: 'plain', outDir: dir, seed: FUSION_SEED, form: 'fused' });
    const graph = loadGraph('already-fused', dir, 'onnx/model.onnx');
    const job = { ...jobOf(plain), original: { bytes: graph.bytes, externalData: [] } };
    expect(await fuseAtLoad(job)).toEqual({
      outcome: { status: 'already-fused', reason: "it already runs ONNX Runtime's GroupQueryAttention" },
      fused: null,
      cacheProblem: null,
    });
  });
});

/** The graph ONNX Runtime writes after its `extended` optimizations (what an optimized export holds). */
async function ortOptimized(bytes: Uint8Array): Promise<Uint8Array> {
  const file = path.join(root, `optimized-${bytes.length}.onnx`);
  const session = await ort.InferenceSession.create(bytes, {
    graphOptimizationLevel: 'extended',
    optimizedModelFilePath: file,
  });
  await session.release();
  return readFileSync(file);
}

describe("other exporters' spellings of the same decoder fuse exactly", () => {
  async function expectExactFusion(bytes: Uint8Array, ops: string[]): Promise<void> {
    const present = ops.filter((op) => readModelView(bytes).graph.nodes.some((n) => n.opType === op));
    expect(present).toEqual(ops);
    const { outcome } = await fuseAtLoad(jobOf(plain, null, bytes));
    expect(outcome).toMatchObject({
      status: 'fused',
      nodesPerLayer: 10,
      agreement: { numEqual: 12, numCompared: 12, isExact: true },
    });
  }

  it('HF-style: x·Reciprocal(Sqrt) norms squared by Mul, Slice halves with concat(−x2, x1), cos/sin gathered from tables', async () => {
    const bytes = editGraph(plain.bytes, (graph) => {
      withReciprocalNorms(graph);
      withNegatedRotateHalf(16)(graph);
      withGatheredRopeTables({ headDim: 16, ropeTheta: 10_000, numPositions: 512 })(graph);
    });
    await expectExactFusion(bytes, ['Reciprocal', 'Slice', 'Neg', 'Gather']);
  });

  it('ONNX Runtime-optimized: SimplifiedLayerNormalization, FusedMatMul scores, QuickGelu', async () => {
    await expectExactFusion(await ortOptimized(plain.bytes), [
      'SimplifiedLayerNormalization',
      'FusedMatMul',
      'QuickGelu',
    ]);
  });

  it('with the residual adds folded into SkipSimplifiedLayerNormalization', async () => {
    const bytes = editGraph(await ortOptimized(plain.bytes), withSkipNorms);
    await expectExactFusion(bytes, ['SkipSimplifiedLayerNormalization', 'FusedMatMul']);
  });
});

describe('the fused graph cache', () => {
  it('saves the fused graph on the first load and serves it on the second, without recognition or check', async () => {
    const cacheDir = path.join(root, 'cache-fused');
    const job = jobOf(plain, cacheDir);
    const first = await fuseAtLoad(job);
    expect(first).toMatchObject({ outcome: { status: 'fused', isFromCache: false }, cacheProblem: null });
    const second = await fuseAtLoad(job);
    expect(second.outcome).toEqual({ ...first.outcome, isFromCache: true });
    expect(typeof second.fused).toBe('string');
    expect(readFileSync(second.fused as string).equals(first.fused as Uint8Array)).toBe(true);
  });

  it('remembers a refusal, and redoes an entry that does not read back', async () => {
    const cacheDir = path.join(root, 'cache-refused');
    const job = jobOf(plain, cacheDir, editGraph(plain.bytes, withLayerNorm(64)));
    expect((await fuseAtLoad(job)).outcome).toMatchObject({ status: 'as-exported', isFromCache: false });
    expect((await fuseAtLoad(job)).outcome).toMatchObject({
      status: 'as-exported',
      part: 'layers.0.input_layernorm',
      isFromCache: true,
    });
    const outcomeFile = path.join(cacheDir, fusionCacheKey(job.modelRevision, 'cpu'), FUSION_OUTCOME_FILE);
    writeFileSync(outcomeFile, '{"status": "fused"');
    expect((await fuseAtLoad(job)).outcome).toMatchObject({ status: 'as-exported', isFromCache: false });
    expect(existsSync(outcomeFile)).toBe(true);
  });
});
