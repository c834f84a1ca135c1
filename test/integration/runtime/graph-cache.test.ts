import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime';
import { GRAPH_DATA_FILE, GRAPH_FILE } from '../../../src-main/runtime/engine/graph-cache';
import { chat, createTestRuntime, generate, TEST_MODEL_ID } from '../../support/runtime';

describe('optimized graph cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ff-graph-cache-'));
  let runtime: Runtime | null = null;
  afterEach(async () => {
    await runtime?.close();
    runtime = null;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const answerWith = async (graphCacheDir: string | null, modelId = TEST_MODEL_ID) => {
    runtime = await createTestRuntime({ graphCacheDir });
    const result = await generate(runtime, {
      modelId,
      prompt: chat('Tell me about the ball.'),
      maxTokens: 16,
    });
    const slot = runtime.slots()[0]!;
    const status = slot.graphCache?.status;
    const host = slot.host;
    await runtime.close();
    runtime = null;
    return { tokenIds: result.tokenIds, status, host };
  };

  it('saves the optimized graph on the first load and builds from it on the next, with the same greedy tokens', async () => {
    const plain = await answerWith(null);
    const first = await answerWith(dir);
    const second = await answerWith(dir);
    expect([plain.status, first.status, second.status]).toEqual(['off', 'saved', 'hit']);
    const [entry, ...others] = readdirSync(dir);
    expect(others).toEqual([]);
    expect(readdirSync(join(dir, entry!)).sort()).toEqual([GRAPH_FILE, GRAPH_DATA_FILE]);
    expect(first.tokenIds).toEqual(plain.tokenIds);
    expect(second.tokenIds).toEqual(plain.tokenIds);
  });

  it('builds a quantized variant from its cached graph with the same greedy tokens', async () => {
    const q4 = `${TEST_MODEL_ID}:q4`;
    const plain = await answerWith(null, q4);
    const first = await answerWith(dir, q4);
    const second = await answerWith(dir, q4);
    expect([first.status, second.status]).toEqual(['saved', 'hit']);
    expect(second.tokenIds).toEqual(plain.tokenIds);
  });

  it('says a slot built from the cache holds no locked copy: ORT maps the cached data', async () => {
    const mappedDir = mkdtempSync(join(tmpdir(), 'ff-graph-mapped-'));
    try {
      const first = await answerWith(mappedDir);
      const second = await answerWith(mappedDir);
      expect(first.host?.pinnedReason ?? '').not.toContain('optimized-graph cache');
      expect(second.host).toMatchObject({ isPinned: false, lockedBytes: 0 });
      expect(second.host?.pinnedReason).toContain('optimized-graph cache');
      expect(second.host?.hostBytes).toBeGreaterThan(0);
    } finally {
      rmSync(mappedDir, { recursive: true, force: true });
    }
  });

  it('removes a cached graph whose data file was cut short and loads from the model file instead', async () => {
    const cutDir = mkdtempSync(join(tmpdir(), 'ff-graph-cut-'));
    try {
      const plain = await answerWith(cutDir);
      const [entry] = readdirSync(cutDir);
      const data = join(cutDir, entry!, GRAPH_DATA_FILE);
      truncateSync(data, Math.floor(statSync(data).size / 2));
      const again = await answerWith(cutDir);
      expect(again.status).toBe('saved');
      expect(again.tokenIds).toEqual(plain.tokenIds);
    } finally {
      rmSync(cutDir, { recursive: true, force: true });
    }
  });

  it('removes a cached graph that does not build and loads from the model file instead', async () => {
    const corruptDir = mkdtempSync(join(tmpdir(), 'ff-graph-corrupt-'));
    try {
      await answerWith(corruptDir);
      const [entry] = readdirSync(corruptDir);
      writeFileSync(join(corruptDir, entry!, GRAPH_FILE), 'not an onnx graph');
      const again = await answerWith(corruptDir);
      expect(again.status).toBe('saved');
      expect(again.tokenIds).toHaveLength(16);
    } finally {
      rmSync(corruptDir, { recursive: true, force: true });
    }
  });
});

describe('execution providers', () => {
  let runtime: Runtime | null = null;
  afterEach(() => runtime?.close());

  it('probes every provider once and gives the reason for each that cannot run here', async () => {
    runtime = await createTestRuntime();
    const providers = await runtime.providers();
    expect(providers.map((p) => p.provider)).toEqual(['cpu', 'webgpu', 'cuda']);
    expect(providers[0]).toEqual({ provider: 'cpu', isAvailable: true, reason: null });
    for (const p of providers.filter((p) => !p.isAvailable))
      expect(p.reason).toMatch(new RegExp(`^${p.provider}: `));
    expect(await runtime.providers()).toBe(providers);
  });

  it('falls back to cpu only when the slot allows it, and says why', async () => {
    runtime = await createTestRuntime();
    const webgpu = (await runtime.providers()).find((p) => p.provider === 'webgpu')!;
    await runtime.close();
    runtime = await createTestRuntime({
      modelProviders: { [TEST_MODEL_ID]: { provider: 'webgpu', isCpuFallbackAllowed: true } },
    });
    const allowed = await generate(runtime, { prompt: chat('Hello'), maxTokens: 2 });
    const slot = runtime.slots()[0]!;
    expect(allowed.timeline.finishReason).toBe('length');
    if (webgpu.isAvailable) {
      expect(slot.provider).toEqual({ requested: 'webgpu', used: 'webgpu', unavailableReason: null });
      return; // a machine with an adapter: nothing falls back, so nothing more to refuse
    }
    expect(slot.provider).toEqual({ requested: 'webgpu', used: 'cpu', unavailableReason: webgpu.reason });
    await runtime.setSlotProvider(TEST_MODEL_ID, { provider: 'webgpu', isCpuFallbackAllowed: false });
    expect(slot.status).toBe('empty');
    const refused = await generate(runtime, { prompt: chat('Hello'), maxTokens: 2 });
    expect(refused.timeline.finishReason).toBe('error');
    expect(refused.errorMessage).toContain(`${webgpu.reason}; falling back to cpu is not allowed`);
    expect(runtime.slots()[0]!.status).toBe('failed');
  });
});
