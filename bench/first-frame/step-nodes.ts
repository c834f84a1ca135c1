import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KvBatch } from '../../src-main/runtime/slot-worker/kv-batch';
import type { RunnerOptions } from '../../src-main/runtime/slot-worker/model-runner';
import { openRunner } from '../../src-main/runtime/slot-worker/open-runner';
import { nodesInLastProfiledRun } from '../../src-main/runtime/slot-worker/profiled-nodes';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';

/**
 * Nodes one decode step runs, from an ONNX Runtime profile of a slot's session (the slot's own
 * rewrites, the bench's threads): a 4-token prefill, then one decode step, profiled.
 */
export async function profiledStepNodes(model: CatalogueModel, threads: RunnerOptions): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-step-profile-'));
  try {
    const runner = await openRunner(model, { ...threads, profileFilePrefix: path.join(dir, 'step') });
    try {
      let batch = KvBatch.empty(runner.geometry, ['profiled']);
      const prefill = await runner.forward(batch, BigInt64Array.of(1n, 2n, 3n, 4n), 4);
      batch = batch.advanced(prefill.kv, 4);
      await runner.forward(batch, BigInt64Array.of(5n), 1);
      runner.endProfiling();
    } finally {
      await runner.release();
    }
    return nodesInLastProfiledRun(dir, 'step');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
