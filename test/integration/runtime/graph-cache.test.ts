import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import * as ort from 'onnxruntime-node';
import {
  GRAPH_DATA_FILE,
  GRAPH_FILE,
  graphCacheKey,
} from '../../../src-main/runtime/slot-worker/graph-cache';
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
    const stepNodes = slot.stepNodes;
    const isBound = slot.runPath?.path === 'bound';
    await runtime.close();
    runtime = null;
    return { tokenIds: result.tokenIds, status, host, stepNodes, isBound };
  };

  /** Runs `body` with a fresh cache folder, removed afterwards. */
  const inFreshDir = async (body: (fresh: string) => Promise<void>) => {
    const fresh = mkdtempSync(join(tmpdir(), 'ff-graph-'));
    try {
      await body(fresh);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  };

  /** Saves an entry, damages it, answers again: the load must fall back, save anew and agree. */
  const expectRecoveryFrom = (damage: (entry: string) => void) =>
    inFreshDir(async (fresh) => {
      const plain = await answerWith(fresh);
      const [entry] = readdirSync(fresh);
      damage(join(fresh, entry!));
      const again = await answerWith(fresh);
      expect(again.status).toBe('saved');
      expect(again.tokenIds).toEqual(plain.tokenIds);
    });

  it('saves the optimized graph on the first load and builds from it on the next, with the same greedy tokens', async () => {
    const plain = await answerWith(null);
    const first = await answerWith(dir);
    const second = await answerWith(dir);
    expect([plain.status, first.status, second.status]).toEqual(['off', 'saved', 'hit']);
    const [entry, ...others] = readdirSync(dir);
    expect(others).toEqual([]);
    // Beside the graph, the bound run path's recorded verdict (when the addon has the bound path).
    const files = readdirSync(join(dir, entry!)).filter((name) => !/^bound-\w+\.json$/.test(name));
    expect(files.sort()).toEqual([GRAPH_FILE, GRAPH_DATA_FILE]);
    expect(first.tokenIds).toEqual(plain.tokenIds);
    expect(second.tokenIds).toEqual(plain.tokenIds);
    // Counted in the saved graph: the fused form's ten nodes per layer, its two delta gathers, six more.
    expect(plain.stepNodes).toEqual({ count: null, reason: expect.stringMatching(/none was saved/) });
    expect(first.stepNodes).toEqual({ count: 12 * 6 + 6, reason: null });
    expect(second.stepNodes).toEqual(first.stepNodes);
  });

  it('builds a quantized variant from its cached graph with the same greedy tokens', async () => {
    const q4 = `${TEST_MODEL_ID}:q4`;
    const plain = await answerWith(null, q4);
    const first = await answerWith(dir, q4);
    const second = await answerWith(dir, q4);
    expect([first.status, second.status]).toEqual(['saved', 'hit']);
    expect(second.tokenIds).toEqual(plain.tokenIds);
  });

  it('says a slot built from the cache holds no locked copy: ORT maps the cached data', () =>
    inFreshDir(async (fresh) => {
      const first = await answerWith(fresh);
      const second = await answerWith(fresh);
      // onnxruntime-node's first build reads the model file into a copy of ours; a slot that
      // then takes the bound path frees it, its session mapping the graph the load just saved.
      if (first.isBound) {
        expect(first.host).toMatchObject({ hostBytes: 0, lockedBytes: 0 });
        expect(first.host?.pinnedReason).toContain('optimized-graph cache');
      } else {
        expect(first.host?.pinnedReason ?? '').not.toContain('optimized-graph cache');
        expect(first.host?.hostBytes).toBeGreaterThan(0);
      }
      expect(second.host).toMatchObject({ hostBytes: 0, isPinned: false, lockedBytes: 0, residentPct: null });
      expect(second.host?.pinnedReason).toContain('optimized-graph cache');
    }));

  it('removes a cached graph whose data file was cut short and loads from the model file instead', () =>
    expectRecoveryFrom((entry) => {
      const data = join(entry, GRAPH_DATA_FILE);
      truncateSync(data, Math.floor(statSync(data).size / 2));
    }));

  it('treats an entry missing its data file as absent and saves it again', () =>
    expectRecoveryFrom((entry) => rmSync(join(entry, GRAPH_DATA_FILE))));

  it('drops a cached graph whose warm-up logits are all zero, marks it, and answers from the model file', () =>
    // ONNX Runtime 1.30 reads back MatMulNBits weights it saved pre-packed as zeros: write such
    // an entry where the q4 variant's (saved without them) would be, as a broken cache would.
    inFreshDir(async (fresh) => {
      const q4 = `${TEST_MODEL_ID}:q4`;
      const plain = await answerWith(null, q4);
      runtime = await createTestRuntime();
      const entry = runtime.catalogue.entryOf(q4);
      if (entry?.status !== 'ok') throw new Error(`no ${q4}`);
      await runtime.close();
      runtime = null;
      const key = graphCacheKey(entry.model.revisions.modelRevision, 'cpu', false);
      await savePrepacked(entry.model.graph.onnxPath, join(fresh, key));
      const first = await answerWith(fresh, q4);
      const second = await answerWith(fresh, q4);
      expect([first.status, second.status]).toEqual(['off', 'off']);
      expect(first.tokenIds).toEqual(plain.tokenIds);
      expect(second.tokenIds).toEqual(plain.tokenIds);
      // Beside the mark, the bound run path's verdict for the model file (when the addon has it).
      expect(readdirSync(fresh).filter((name) => !/^bound-\w+\.json$/.test(name))).toEqual([
        `${key}.unusable`,
      ]);
    }));

  it('removes a cached graph that does not build and loads from the model file instead', () =>
    expectRecoveryFrom((entry) => writeFileSync(join(entry, GRAPH_FILE), 'not an onnx graph')));
});

/** Has ONNX Runtime save `onnxPath`'s optimized graph into `entry` with pre-packed weights. */
async function savePrepacked(onnxPath: string, entry: string): Promise<void> {
  mkdirSync(entry, { recursive: true });
  const session = await ort.InferenceSession.create(onnxPath, {
    graphOptimizationLevel: 'all',
    optimizedModelFilePath: join(entry, GRAPH_FILE),
    intraOpNumThreads: 1,
    logSeverityLevel: 3,
    extra: {
      session: {
        optimized_model_external_initializers_file_name: GRAPH_DATA_FILE,
        optimized_model_external_initializers_min_size_in_bytes: '1024',
        save_external_prepacked_constant_initializers: '1',
      },
    },
  });
  await session.release();
}

describe('execution providers', () => {
  let runtime: Runtime | null = null;
  afterEach(() => runtime?.close());

  it('probes every provider once in its own process, logging what it found instead of printing', async () => {
    const debug: string[] = [];
    const log = {
      warn: () => undefined,
      debug: (_topic: string, message: string) => void debug.push(message),
    };
    runtime = await createTestRuntime({ log });
    expect(runtime.providersIfChecked()).toBeNull();
    const providers = await runtime.providers();
    expect(providers.map((p) => p.provider)).toEqual(['cpu', 'webgpu', 'cuda']);
    expect(providers[0]).toEqual({ provider: 'cpu', isAvailable: true, reason: null });
    for (const p of providers.filter((p) => !p.isAvailable))
      expect(p.reason).toMatch(new RegExp(`^${p.provider}: (?!could not be checked)`));
    expect(await runtime.providers()).toBe(providers);
    expect(runtime.providersIfChecked()).toBe(providers);
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatch(/^cpu available; /);
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
