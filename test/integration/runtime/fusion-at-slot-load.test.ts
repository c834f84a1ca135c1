import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RuntimeOptions } from '../../../src-main/runtime/runtime-options';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { FUSED_GRAPH_FILE, FUSION_OUTCOME_FILE } from '../../../src-main/runtime/slot-worker/fusion-cache';
import { FUSION_CHECK_LIMITS } from '../../../src-main/runtime/model/fuse-at-load/outcome';
import {
  EDITABLE_MODEL,
  withHiddenSlidingWindow,
  withLayerNorm,
  withQkvBiases,
  writeEditedModel,
} from '../../support/fusion-graphs';
import { BUNDLED_MODEL_ID, naiveBundledModelsDir, randomModelsDir } from '../../support/models';
import { chat, createTestRuntime, generate } from '../../support/runtime';

const { onnx } = onnxProto;
const root = mkdtempSync(path.join(tmpdir(), 'ff-slot-fusion-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A models folder holding the float32 naive test model, named `name`, with its graph edited by `edit`. */
function editedModelsDir(name: string, edit: Parameters<typeof writeEditedModel>[1]): string {
  const dir = path.join(root, `models-${name}`);
  writeEditedModel(path.join(dir, name), edit);
  return dir;
}

describe('fusion at slot load', () => {
  let runtime: Runtime | null = null;
  afterEach(async () => {
    await runtime?.close();
    runtime = null;
  });

  /** Loads `modelId` in a fresh runtime, answers one greedy request, and reports what the slot ran. */
  const answerWith = async (options: Partial<RuntimeOptions>, modelId = BUNDLED_MODEL_ID) => {
    runtime = await createTestRuntime(options);
    const result = await generate(runtime, {
      modelId,
      prompt: chat('Tell me about the ball.'),
      maxTokens: 16,
    });
    const slot = runtime.slots().find((s) => s.model.modelId.startsWith(modelId))!;
    const summary = {
      tokenIds: result.tokenIds,
      errorMessage: result.errorMessage,
      fusion: slot.fusion,
      graphIo: slot.graphIo,
      graphCache: slot.graphCache?.status,
    };
    await runtime.close();
    runtime = null;
    return summary;
  };

  it('rewrites a naive export once, checks it, caches it, and the next load reuses the rewrite', async () => {
    const naive = naiveBundledModelsDir();
    const cacheDir = path.join(root, 'cache-naive');
    const asExported = await answerWith({ bundledModelsDir: naive, canFuseAtLoad: false });
    expect(asExported.fusion).toEqual({ status: 'off', reason: 'fusion at load is off in Settings' });
    expect(asExported.graphIo).toMatchObject({ kvRows: 'end', hasLengthInputs: false });

    const first = await answerWith({ bundledModelsDir: naive, graphCacheDir: cacheDir });
    expect(first.fusion).toMatchObject({ status: 'fused', nodesPerLayer: 10, isFromCache: false });
    expect(first.graphIo).toMatchObject({ kvRows: 'start', hasLengthInputs: true, kvDtype: 'float32' });
    if (first.fusion?.status !== 'fused') return;
    const { agreement, stepNodes } = first.fusion;
    console.log(
      `naive bundled model: ${agreement.numEqual}/${agreement.numCompared} equal greedy ids (exact: ${agreement.isExact}), nodes per step ${stepNodes?.original} → ${stepNodes?.fused}`,
    );
    expect(agreement.numEqual / agreement.numCompared).toBeGreaterThanOrEqual(
      FUSION_CHECK_LIMITS.minAgreement,
    );
    expect(stepNodes!.fused).toBeLessThan(stepNodes!.original / 2);
    expect(first.tokenIds.length).toBeGreaterThan(0);

    const entry = readdirSync(cacheDir).find((name) => /-fused\d+$/.test(name))!;
    const written = [FUSION_OUTCOME_FILE, FUSED_GRAPH_FILE].map(
      (f) => statSync(path.join(cacheDir, entry, f)).mtimeMs,
    );
    const second = await answerWith({ bundledModelsDir: naive, graphCacheDir: cacheDir });
    expect(second.fusion).toEqual({ ...first.fusion, isFromCache: true });
    expect(second.graphCache).toBe('hit');
    expect(second.tokenIds).toEqual(first.tokenIds);
    // Nothing was rewritten: the entry's files are the first load's.
    expect(
      [FUSION_OUTCOME_FILE, FUSED_GRAPH_FILE].map((f) => statSync(path.join(cacheDir, entry, f)).mtimeMs),
    ).toEqual(written);
  });

  it('runs a float32 naive export fused with the same greedy tokens as the graph as exported', async () => {
    const dir = randomModelsDir([EDITABLE_MODEL]);
    const asExported = await answerWith({ userModelsDir: dir, canFuseAtLoad: false }, EDITABLE_MODEL);
    const fused = await answerWith({ userModelsDir: dir }, EDITABLE_MODEL);
    expect(fused.fusion).toMatchObject({
      status: 'fused',
      agreement: { isExact: true, numEqual: 12, numCompared: 12 },
    });
    expect(fused.tokenIds).toEqual(asExported.tokenIds);
  });

  it('runs a Qwen2-style export (q, k and v biases) fused with the same greedy tokens as the graph as exported', async () => {
    const dir = editedModelsDir('qwen2-biases', withQkvBiases);
    const asExported = await answerWith({ userModelsDir: dir, canFuseAtLoad: false }, 'qwen2-biases');
    const fused = await answerWith({ userModelsDir: dir }, 'qwen2-biases');
    expect(fused.fusion).toMatchObject({
      status: 'fused',
      agreement: { isExact: true, numEqual: 12, numCompared: 12 },
    });
    expect(fused.graphIo).toMatchObject({ kvRows: 'start' });
    expect(fused.tokenIds).toEqual(asExported.tokenIds);
  });

  it.each([
    ['does not match (a LayerNorm)', 'layernorm', withLayerNorm(64), 'layers.0.input_layernorm', /\S/],
    [
      'fails its check (a mask hiding a sliding window)',
      'window',
      withHiddenSlidingWindow(3),
      'check',
      /^its greedy ids differ/,
    ],
  ] as const)(
    'a graph that %s runs as exported, says which part and why, and still answers',
    async (_, name, edit, part, reason) => {
      const result = await answerWith({ userModelsDir: editedModelsDir(name, edit) }, name);
      expect(result.fusion).toMatchObject({
        status: 'as-exported',
        part,
        reason: expect.stringMatching(reason) as string,
      });
      expect(result.graphIo).toMatchObject({ kvRows: 'end' });
      expect(result.errorMessage).toBeNull();
      expect(result.tokenIds.length).toBeGreaterThan(0);
    },
  );

  it('leaves the bundled model, fused by its exporter, as it is', async () => {
    const result = await answerWith({});
    expect(result.fusion).toEqual({
      status: 'already-fused',
      reason: "it already runs ONNX Runtime's GroupQueryAttention",
    });
  });

  describe('a fused graph that fails on disk', () => {
    const dir = randomModelsDir([EDITABLE_MODEL]);
    const originalFile = path.join(dir, EDITABLE_MODEL, 'onnx', 'model.onnx');
    const digestOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    const isFusionEntry = (name: string) => /-fused\d+$/.test(name);

    /** The fused graph with an IR version ONNX Runtime refuses: it reads as a graph, no session builds from it. */
    const withUnknownIrVersion = (file: string) => {
      const model = onnx.ModelProto.decode(readFileSync(file));
      model.irVersion = 99;
      writeFileSync(file, onnx.ModelProto.encode(model).finish());
    };
    const truncated = (file: string) => writeFileSync(file, readFileSync(file).subarray(0, 1000));

    it.each([
      ['is not an ONNX file any more', truncated, /^the fused graph could not be read back: \S/],
      [
        'is a graph ONNX Runtime cannot load',
        withUnknownIrVersion,
        /^ONNX Runtime could not load the fused graph: .*IR version/,
      ],
    ] as const)(
      'a cached fused graph that %s runs as exported with the reason, is forgotten, and the original file is untouched',
      async (_, damage, reason) => {
        const cacheDir = mkdtempSync(path.join(root, 'cache-damaged-'));
        const originalDigest = digestOf(originalFile);
        const first = await answerWith({ userModelsDir: dir, graphCacheDir: cacheDir }, EDITABLE_MODEL);
        expect(first.fusion).toMatchObject({ status: 'fused', isFromCache: false });
        // Only the fusion entry stays, its graph damaged: the next load must build from that file.
        for (const name of readdirSync(cacheDir).filter((n) => !isFusionEntry(n)))
          rmSync(path.join(cacheDir, name), { recursive: true, force: true });
        damage(path.join(cacheDir, readdirSync(cacheDir).find(isFusionEntry)!, FUSED_GRAPH_FILE));

        const damaged = await answerWith({ userModelsDir: dir, graphCacheDir: cacheDir }, EDITABLE_MODEL);
        expect(damaged.fusion).toMatchObject({
          status: 'as-exported',
          part: 'graph',
          reason: expect.stringMatching(reason) as string,
          isFromCache: false,
        });
        expect(damaged.graphIo).toMatchObject({ kvRows: 'end' });
        expect(damaged.errorMessage).toBeNull();
        expect(damaged.tokenIds).toEqual(first.tokenIds);
        expect(readdirSync(cacheDir).filter(isFusionEntry)).toEqual([]);
        expect(digestOf(originalFile)).toBe(originalDigest);

        // Nothing of the damaged entry was trusted: the next load rewrites and checks again.
        const next = await answerWith({ userModelsDir: dir, graphCacheDir: cacheDir }, EDITABLE_MODEL);
        expect(next.fusion).toMatchObject({ status: 'fused', isFromCache: false });
      },
    );
  });
});
