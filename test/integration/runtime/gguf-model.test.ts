import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import type { Slot } from '../../../src-main/runtime/slots/slot';
import { bundledGguf } from '../../support/gguf-fixtures';
import { peersSkipReason } from '../../support/llama-peers';
import { chat, createTestRuntime, expectNothingHeld, generate } from '../../support/runtime';

// A Q4_K_M GGUF (llama.cpp's own quantizer, from the bundled model) dropped into the models folder,
// as a new user would: listed, converted once on its first load with the bytes done on the slot,
// answered from, and on the next start loaded from the conversion already in the graph cache.

describe.skipIf(peersSkipReason !== null)('a Q4_K_M GGUF in the models folder', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-gguf-runtime-'));
  const models = path.join(root, 'models');
  const converted = path.join(root, 'ort-graphs', 'gguf');
  const MODEL_ID = 'austen-q4_k_m:gguf';
  let runtime: Runtime | null = null;
  afterEach(async () => {
    await runtime?.close();
    runtime = null;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const start = () =>
    createTestRuntime({
      userModelsDir: models,
      convertedModelsDir: converted,
      graphCacheDir: path.join(root, 'ort-graphs'),
    });

  it('is listed, converts on its first load with bytes done on the slot, answers, and the next start reuses the conversion', async () => {
    mkdirSync(models);
    const file = path.join(models, 'austen-q4_k_m.gguf');
    copyFileSync(bundledGguf('q4_k_m'), file);
    const before = statSync(file);
    runtime = await start();
    const entry = runtime.catalogue.entryOf('austen-q4_k_m');
    expect(entry).toMatchObject({ status: 'ok', modelId: MODEL_ID });
    if (entry?.status !== 'ok') throw new Error('not listed');
    expect(entry.model.conversion).toMatchObject({ file });
    // The Q6_K embedding's 8-bit codes (and every block's int8 scale step), the Q4_K layers' 4-bit ones (storage-plan.ts).
    expect(entry.model.graph.weightDtype).toBe('int8 + int4');

    const seen: Array<Slot['conversion']> = [];
    runtime.onSlotConversion((slot) => seen.push(slot.conversion && { ...slot.conversion }));
    const first = await generate(runtime, {
      modelId: MODEL_ID,
      prompt: chat('Tell me about the ball.'),
      maxTokens: 16,
    });
    expect(first.tokenIds.length).toBeGreaterThan(0);
    expect(first.text.trim().length).toBeGreaterThan(0);
    const progress = seen.filter((c) => c !== null);
    expect(progress.length).toBeGreaterThanOrEqual(2); // the thread posts at most every 100 ms: the start and the end at least
    expect(progress[0]!.bytesDone).toBe(0);
    expect(progress.at(-1)!.bytesDone).toBe(progress.at(-1)!.bytesTotal);
    expect(progress.every((c, i) => i === 0 || c.bytesDone >= progress[i - 1]!.bytesDone)).toBe(true);
    expect(seen.at(-1)).toBeNull();
    const slot = runtime.slots()[0]!;
    // The slot holds the graph alone: ORT maps the weights from the converted data file (read-weights.ts).
    expect(slot.host).toMatchObject({ isPinned: false, lockedBytes: 0 });
    expect(slot.host!.pinnedReason).toMatch(/(mapped|read) by ONNX Runtime/);
    expect(slot.host!.hostBytes).toBeLessThan(entry.model.graph.weightBytes / 10);
    expect(slot.conversion).toBeNull();
    expect(slot.model.conversion).toBeNull();
    expect(readdirSync(converted)).toHaveLength(1);
    await runtime.close();
    runtime = null;

    runtime = await start();
    const again = runtime.catalogue.entryOf('austen-q4_k_m');
    expect(again?.status === 'ok' && again.model.conversion).toBeNull();
    const conversions: unknown[] = [];
    runtime.onSlotConversion((s) => conversions.push(s.conversion));
    const second = await generate(runtime, {
      modelId: MODEL_ID,
      prompt: chat('Tell me about the ball.'),
      maxTokens: 16,
    });
    expect(conversions).toEqual([]);
    expect(second.tokenIds).toEqual(first.tokenIds);
    // One converted copy on disk, no optimized copy of it beside (slot-load.ts: it does not pay).
    expect(runtime.slots()[0]!.graphCache).toMatchObject({
      status: 'off',
      reason: expect.stringMatching(/converted GGUF/),
    });
    // Beside it only the bound run path's small verdict file (when the addon has the bound path).
    const cacheFiles = readdirSync(path.join(root, 'ort-graphs'));
    expect(cacheFiles.filter((name) => !/^bound-\w+\.json$/.test(name))).toEqual(['gguf']);
    expect(readdirSync(converted)).toHaveLength(1);
    const after = statSync(file);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expectNothingHeld(runtime);
  }, 240_000);

  it('clears the conversion cache of a model not loaded now only, and that model converts again at its next load', async () => {
    runtime = await start(); // the conversion from the test above is on disk
    const ask = () => ({ modelId: MODEL_ID, prompt: chat('Tell me about the ball.'), maxTokens: 8 });
    const first = await generate(runtime, ask());
    const loaded = await runtime.conversionCache();
    expect(loaded.folders).toMatchObject([
      { sourcePath: path.join(models, 'austen-q4_k_m.gguf'), isInUse: true },
    ]);
    expect(loaded.numBytes).toBeGreaterThan(0);
    expect(loaded.numFreeableBytes).toBe(0);
    expect(await runtime.clearConversionCache()).toMatchObject({ numRemoved: 0, numKeptInUse: 1 });
    expect(readdirSync(converted)).toHaveLength(1);

    await runtime.evict(runtime.slots()[0]!.slotId);
    expect((await runtime.conversionCache()).numFreeableBytes).toBe(loaded.numBytes);
    const cleared = await runtime.clearConversionCache();
    expect(cleared).toMatchObject({ numRemoved: 1, numFreedBytes: loaded.numBytes, numKeptInUse: 0 });
    expect(readdirSync(converted)).toEqual([]);

    const conversions: unknown[] = [];
    runtime.onSlotConversion((s) => conversions.push(s.conversion));
    const again = await generate(runtime, ask());
    expect(conversions.length).toBeGreaterThan(0);
    expect(again.tokenIds).toEqual(first.tokenIds);
    expect(readdirSync(converted)).toHaveLength(1);
  }, 240_000);
});
