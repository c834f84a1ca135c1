import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { Runtime } from '../../../src-main/runtime/runtime';
import { KvBatch } from '../../../src-main/runtime/slot-worker/kv-batch';
import { kvGeometryOf, pageBytes } from '../../../src-main/runtime/model/kv-geometry';
import { lastLogits, logitsAt } from '../../../src-main/runtime/slot-worker/model-runner';
import { openRunner } from '../../../src-main/runtime/slot-worker/open-runner';
import { keepLastLogits } from '../../../src-main/runtime/model/onnx-graph/keep-last-logits';
import type { CatalogueModel } from '../../../src-main/runtime/model/catalogue';
import { LAYOUTS, layoutDirs, writeLayoutModel } from '../../../tools/onnx-llama/layouts';
import type { LayoutName } from '../../../tools/onnx-llama/layouts';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

const PROMPTS = ['Once upon a time', 'The letter was short, and', 'Mr. Darcy said nothing'];
const NUM_TOKENS = 10;
const LAYOUT_NAMES = (Object.keys(LAYOUTS) as LayoutName[]).filter((name) => name !== 'plain');

type Transformers = typeof import('@huggingface/transformers');

/** Greedy tokens through First Frame's runtime (worker, scheduler, K/V batches). */
async function firstFrameTokens(runtime: Runtime, modelId: string): Promise<number[][]> {
  const outputs: number[][] = [];
  for (const [i, text] of PROMPTS.entries()) {
    const result = await collectGeneration(runtime, {
      requestId: `${modelId}-${i}`,
      modelId,
      prompt: { kind: 'text', text },
      maxTokens: NUM_TOKENS,
      temperature: 0,
      ignoreEos: true,
    });
    if (result.errorMessage) throw new Error(`${modelId}: ${result.errorMessage}`);
    outputs.push(result.tokenIds);
  }
  return outputs;
}

/** Greedy tokens through transformers.js (the oracle), from the same prompt ids. */
async function transformersTokens(hf: Transformers, dir: string, layout: LayoutName, prompts: number[][]) {
  hf.env.allowRemoteModels = false;
  hf.env.allowLocalModels = true;
  hf.env.localModelPath = path.dirname(dir);
  const model = await hf.AutoModelForCausalLM.from_pretrained(path.basename(dir), {
    device: 'cpu',
    ...LAYOUTS[layout].transformersOptions,
  } as never);
  try {
    const outputs: number[][] = [];
    for (const ids of prompts) {
      const inputIds = new hf.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);
      const mask = new hf.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]);
      const sequences = (await model.generate({
        input_ids: inputIds,
        attention_mask: mask,
        max_new_tokens: NUM_TOKENS,
        min_new_tokens: NUM_TOKENS,
        do_sample: false,
      } as never)) as { tolist(): bigint[][] };
      outputs.push(sequences.tolist()[0]!.slice(ids.length).map(Number));
    }
    return outputs;
  } finally {
    await model.dispose();
  }
}

function modelOf(runtime: Runtime, ref: string): CatalogueModel {
  const model = runtime.catalogue.resolve(ref);
  if (model instanceof Error) throw model;
  return model;
}

describe('model folders in the layouts people download', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-layouts-'));
  let runtime: Runtime;
  let hf: Transformers;
  beforeAll(async () => {
    for (const [i, layout] of LAYOUT_NAMES.entries()) {
      const { dir, twinDir } = layoutDirs(root, layout);
      const tokenizerFrom = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
      writeLayoutModel({ layout, outDir: dir, seed: 20 + i, tokenizerFrom });
      writeLayoutModel({ layout, outDir: twinDir, seed: 20 + i, tokenizerFrom, isTwin: true });
    }
    runtime = await Runtime.create({ bundledModelsDir: root, numThreads: 1, maxSeats: 2 });
    hf = await import('@huggingface/transformers');
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const layout of LAYOUT_NAMES) {
    it(`${layout}: lists, loads and answers with its plain twin's greedy tokens, as transformers.js does`, async () => {
      const entry = runtime.catalogue.entryOf(layout);
      if (entry?.status !== 'ok')
        throw new Error(`${layout} did not list: ${entry?.status === 'broken' ? entry.error : 'absent'}`);
      const ours = await firstFrameTokens(runtime, layout);
      const twin = await firstFrameTokens(runtime, `${layout}-twin`);
      expect(ours).toEqual(twin);
      const promptIds = PROMPTS.map((text) => entry.model.folder.tokenizer.encode(text));
      const oracle = await transformersTokens(hf, layoutDirs(root, layout).dir, layout, promptIds);
      expect(ours).toEqual(oracle);
      expect(new Set(ours.flat()).size).toBeGreaterThan(3); // the weights do not just repeat one token
    });
  }

  it('logits-to-keep: asks the graph for the last position only when sampling, every position when scoring', async () => {
    const runner = await openRunner(modelOf(runtime, 'logits-to-keep'), {
      numThreads: 1,
      canSpinThreads: true,
    });
    try {
      const ids = BigInt64Array.of(5n, 6n, 7n, 8n, 9n);
      const batch = KvBatch.empty(runner.geometry, ['a']);
      const last = await runner.forward(batch, ids, 5, 'last');
      const all = await runner.forward(batch, ids, 5, 'all');
      expect(last.numPositions).toBe(1);
      expect(all.numPositions).toBe(5);
      const diff = Math.max(...lastLogits(last, 0).map((v, i) => Math.abs(v - logitsAt(all, 0, 4)[i]!)));
      expect(diff).toBeLessThan(1e-4);
    } finally {
      await runner.release();
    }
  });

  for (const layout of ['external-data', 'merged', 'fp16-past', 'matmul-head'] as const) {
    it(`${layout}: a graph without logits-to-keep is given one at load (and new-column K/V outputs): one position for sampling, all for scoring`, async () => {
      const model = modelOf(runtime, layout);
      expect(model.graph.io.logitsToKeepInput).toBeNull();
      const runner = await openRunner(model, { numThreads: 1, canSpinThreads: true });
      try {
        const ids = BigInt64Array.of(5n, 6n, 7n, 8n, 9n);
        const batch = KvBatch.empty(runner.geometry, ['a']);
        const last = await runner.forward(batch, ids, 5, 'last');
        const all = await runner.forward(batch, ids, 5, 'all');
        expect([last.numPositions, all.numPositions]).toEqual([1, 5]);
        // Given delta outputs too: only the five new columns come back, not the whole present.
        expect(last.kv.form).toBe('new');
        expect(last.kv.tensors[0]!.length).toBe(runner.geometry.numKvHeads * 5 * runner.geometry.headDim);
        // Before the head, one row goes through the MatMul instead of five: equal up to rounding.
        const diff = Math.max(...lastLogits(last, 0).map((v, i) => Math.abs(v - logitsAt(all, 0, 4)[i]!)));
        expect(diff).toBeLessThan(1e-4);
        const rewritten = keepLastLogits(readFileSync(model.graph.onnxPath));
        expect('placement' in rewritten && rewritten.placement).toBe(
          layout === 'matmul-head' ? 'before-head' : 'on-logits',
        );
      } finally {
        await runner.release();
      }
    });
  }

  it('fp16-past: keeps K/V as fp16 end to end as exported, in pages of half the bytes with a layout revision of their own; fused at load, float32 like its twin', async () => {
    const fp16 = modelOf(runtime, 'fp16-past');
    const twin = modelOf(runtime, 'fp16-past-twin');
    expect(fp16.variant).toBe('fp16');
    expect(fp16.graph.io).toMatchObject({ kvDtype: 'float16', logitsDtype: 'float16' });
    expect(pageBytes(kvGeometryOf(fp16), 16) * 2).toBe(pageBytes(kvGeometryOf(twin), 16));
    const layoutOf = async (on: Runtime, name: string) =>
      (await on.prefetch(name)).pageIdentity?.layoutRevision;
    const asExported = await Runtime.create({ bundledModelsDir: root, numThreads: 1, canFuseAtLoad: false });
    try {
      const fp16Layout = await layoutOf(asExported, 'fp16-past');
      expect(fp16Layout).toBeTruthy();
      expect(fp16Layout).not.toBe(await layoutOf(asExported, 'fp16-past-twin'));
    } finally {
      await asExported.close();
    }
    // Fused at load the slot runs float32 K/V: its pages are sized and keyed as its twin's.
    expect(await layoutOf(runtime, 'fp16-past')).toBe(await layoutOf(runtime, 'fp16-past-twin'));
  });
});
