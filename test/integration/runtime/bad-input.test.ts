import { mkdirSync, mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../src-main/runtime/runtime';
import { SAMPLING_LIMITS } from '../../../src-main/runtime/sampling/limits';
import { chat, expectNothingHeld, generate, TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

describe('bad input gets a clear error and loses nothing', () => {
  let runtime: Runtime;
  let modelsDir: string;
  beforeAll(async () => {
    modelsDir = mkdtempSync(path.join(os.tmpdir(), 'ff-models-'));
    cpSync(path.join(TEST_MODELS_DIR, TEST_MODEL_ID), path.join(modelsDir, TEST_MODEL_ID), {
      recursive: true,
    });
    const broken = path.join(modelsDir, 'broken-graph');
    cpSync(path.join(TEST_MODELS_DIR, TEST_MODEL_ID), broken, { recursive: true });
    writeFileSync(path.join(broken, 'onnx', 'model.onnx'), Buffer.alloc(4096, 7));
    cpSync(path.join(TEST_MODELS_DIR, TEST_MODEL_ID), path.join(modelsDir, 'no-tokenizer'), {
      recursive: true,
    });
    rmSync(path.join(modelsDir, 'no-tokenizer', 'tokenizer.json'));
    mkdirSync(path.join(modelsDir, 'empty-folder'));
    runtime = await Runtime.create({
      bundledModelsDir: modelsDir,
      numThreads: 1,
      maxPromptTokens: 64,
      maxOutputTokens: 100,
      defaultMaxTokens: 8,
      maxQueue: 8,
      defaultDeadlineMs: null,
    });
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('rejects an empty prompt', async () => {
    const result = await generate(runtime, { prompt: { kind: 'text', text: '' } });
    expect(result.timeline.finishReason).toBe('rejected');
    expect(result.errorMessage).toBe('prompt is empty');
  });

  it('rejects a prompt over the limit, naming both numbers', async () => {
    const result = await generate(runtime, { prompt: { kind: 'text', text: 'word '.repeat(200) } });
    expect(result.errorCode).toBe('invalid_input');
    expect(result.errorMessage).toMatch(/^prompt is \d+ tokens; the limit is 64$/);
  });

  it('rejects non-numeric and out-of-range sampling values', async () => {
    const nan = await generate(runtime, { prompt: chat('Hi'), temperature: Number.NaN });
    expect(nan.errorMessage).toContain('temperature must be a number');
    const text = await generate(runtime, { prompt: chat('Hi'), topP: 'high' as unknown as number });
    expect(text.errorMessage).toContain('topP must be a number');
    const tooMany = await generate(runtime, { prompt: chat('Hi'), maxTokens: 1000 });
    expect(tooMany.errorMessage).toContain('maxTokens must be an integer from 1 to 100');
    const penalty = await generate(runtime, { prompt: chat('Hi'), repeatPenalty: 5 });
    expect(penalty.errorMessage).toBe('repeatPenalty must be a number from 0.5 to 2, got 5');
  });

  it('refuses sampling values past the shared limits, the same ones the schemas use', async () => {
    const { temperature, seed, stop } = SAMPLING_LIMITS;
    const hot = await generate(runtime, { prompt: chat('Hi'), temperature: temperature.max + 0.5 });
    expect(hot.errorMessage).toBe(
      `temperature must be a number from 0 to ${temperature.max}, got ${temperature.max + 0.5}`,
    );
    const bigSeed = await generate(runtime, { prompt: chat('Hi'), seed: seed.max + 1 });
    expect(bigSeed.errorMessage).toContain(`seed must be an integer from 0 to ${seed.max}`);
    const stops = Array.from({ length: stop.maxCount + 1 }, (_, i) => `s${i}`);
    const manyStops = await generate(runtime, { prompt: chat('Hi'), stop: stops });
    expect(manyStops.errorMessage).toContain(`stop must hold at most ${stop.maxCount} strings`);
    for (const result of [hot, bigSeed, manyStops]) expect(result.errorCode).toBe('invalid_input');
    expectNothingHeld(runtime);
  });

  it('lists a folder without tokenizer.json as broken, naming the file', () => {
    const entry = runtime.models().find((m) => m.modelId === 'no-tokenizer');
    expect(entry?.status).toBe('broken');
    if (entry?.status === 'broken') expect(entry.error).toMatch(/^tokenizer\.json: missing/);
    const empty = runtime.models().find((m) => m.modelId === 'empty-folder');
    if (empty?.status === 'broken') expect(empty.error).toMatch(/^config\.json: missing/);
    else throw new Error('an empty folder must be listed as broken');
  });

  it('lists a graph file that is not an ONNX model as broken, refuses requests for it and keeps serving', async () => {
    const entry = runtime.catalogue.entryOf('broken-graph');
    expect(entry).toMatchObject({ status: 'broken', modelId: 'broken-graph:fp32', variant: 'fp32' });
    if (entry?.status === 'broken')
      expect(entry.error).toMatch(/^onnx\/model\.onnx: is not a readable ONNX model/);
    const broken = await generate(runtime, { prompt: chat('Hi'), modelId: 'broken-graph' });
    expect(broken.timeline.finishReason).toBe('rejected');
    expect(broken.errorCode).toBe('not_found');
    expect(broken.errorMessage).toMatch(/^onnx\/model\.onnx: is not a readable ONNX model/);
    expect(runtime.slots().some((s) => s.model.name === 'broken-graph')).toBe(false);
    const healthy = await generate(runtime, { prompt: chat('Hi') });
    expect(healthy.timeline.finishReason).toBe('length');
    expectNothingHeld(runtime);
  });
});
