import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSlot } from '../../../../src-main/runtime/slot-worker/load-slot';
import { loadBoundOrt } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-library';
import { openBoundSlot } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-slot';
import type { LoadJob } from '../../../../src-main/runtime/slot-worker/protocol';
import { bundledQ4LoadJob } from '../../../support/bundled-load-job';

const root = mkdtempSync(path.join(tmpdir(), 'ff-bound-slot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const bound = loadBoundOrt();
const isRequired = process.env['FF_REQUIRE_NATIVE'] === '1';

/** The worker's load job for the bundled q4 model (already fused: GroupQueryAttention). */
function jobOf(graphCacheDir: string | null): Promise<LoadJob> {
  return bundledQ4LoadJob({ graphCacheDir, modelRevision: 'test-bound-slot-q4', isFusionOn: false });
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
