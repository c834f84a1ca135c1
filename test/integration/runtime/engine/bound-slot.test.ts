import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSlot } from '../../../../src-main/runtime/engine/load-slot';
import { loadBoundOrt } from '../../../../src-main/runtime/engine/ort-binding/bound-library';
import { openBoundSlot } from '../../../../src-main/runtime/engine/ort-binding/bound-slot';
import type { LoadJob } from '../../../../src-main/runtime/engine/protocol';
import { ModelCatalogue } from '../../../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../../../src-main/runtime/model/revisions';
import { kvGeometryOf } from '../../../../src-main/runtime/model/kv-geometry';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';

const root = mkdtempSync(path.join(tmpdir(), 'ff-bound-slot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const bound = loadBoundOrt();
const isRequired = process.env['FF_REQUIRE_NATIVE'] === '1';

/** The worker's load job for the bundled q4 model (already fused: GroupQueryAttention). */
async function jobOf(graphCacheDir: string | null): Promise<LoadJob> {
  const catalogue = new ModelCatalogue(BUNDLED_MODELS_DIR, null, new RevisionCache(null));
  await catalogue.refresh();
  const model = catalogue.resolve(`${BUNDLED_MODEL_ID}:q4`);
  if (model instanceof Error) throw model;
  return {
    type: 'load',
    file: model.graph.file,
    onnxPath: model.graph.onnxPath,
    externalData: [],
    io: model.graph.io,
    modelRevision: 'test-bound-slot-q4',
    geometry: kvGeometryOf(model),
    numThreads: 1,
    canSpinThreads: true,
    provider: { provider: 'cpu', isCpuFallbackAllowed: false },
    graphCacheDir,
    canCachePrepacked: false,
    graphCacheBytes: 1 << 20,
    graphCacheSkip: null,
    fusion: { isOn: false, hints: { shape: model.folder.shape, config: model.folder.config } },
  };
}

describe.skipIf(!bound.isAvailable && !isRequired)('a slot load’s bound run path', () => {
  it('opens on the graph the load saved, then on the same graph served from the cache', async () => {
    const job = await jobOf(path.join(root, 'cache'));
    for (const status of ['saved', 'hit']) {
      const loaded = await loadSlot(job);
      expect(loaded.graphCache.status).toBe(status);
      const opened = await openBoundSlot(job, loaded);
      await loaded.runner.release();
      if (!('runner' in opened)) throw new Error(opened.reason);
      expect(opened.runner.kv.numTokensOf(0)).toBe(0);
      opened.runner.release();
    }
  });

  it('stays on onnxruntime-node, with the reason, for a graph without GroupQueryAttention', async () => {
    const job = await jobOf(null);
    const loaded = await loadSlot(job);
    const naive = { ...job, io: { ...job.io, hasLengthInputs: false } };
    expect(await openBoundSlot(naive, loaded)).toEqual({
      reason: 'its graph does not run GroupQueryAttention',
    });
    await loaded.runner.release();
  });
});
