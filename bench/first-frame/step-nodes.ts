import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KvBatch } from '../../src-main/runtime/engine/kv-batch';
import { openRunner } from '../../src-main/runtime/engine/open-runner';
import type { CatalogueModel } from '../../src-main/runtime/model';

/** One event of an ONNX Runtime profile (Chrome trace format). */
interface ProfileEvent {
  cat: string;
  name: string;
  ts: number;
  dur: number;
}

/**
 * Nodes ONNX Runtime ran in the last run of a profile: the `Node` kernel events inside the last
 * `model_run` span. Counted from what ran, independently of the optimized graph the slot reads.
 */
export function nodesInLastRun(events: readonly ProfileEvent[]): number {
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run');
  const last = runs.at(-1);
  if (!last) throw new Error('the profile holds no model_run');
  return events.filter(
    (e) =>
      e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.ts >= last.ts && e.ts <= last.ts + last.dur,
  ).length;
}

/**
 * Nodes one decode step runs, from an ONNX Runtime profile of a slot's session (the slot's own
 * rewrites, the bench's threads): a 4-token prefill, then one decode step, profiled.
 */
export async function profiledStepNodes(model: CatalogueModel, numThreads: number): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-step-profile-'));
  try {
    const runner = await openRunner(model, { numThreads, profileFilePrefix: path.join(dir, 'step') });
    try {
      let batch = KvBatch.empty(runner.geometry, ['profiled']);
      const prefill = await runner.forward(batch, BigInt64Array.of(1n, 2n, 3n, 4n), 4);
      batch = batch.advanced(prefill.kv, 4);
      await runner.forward(batch, BigInt64Array.of(5n), 1);
      runner.endProfiling();
    } finally {
      await runner.release();
    }
    const [file] = readdirSync(dir).filter((name) => name.endsWith('.json'));
    if (!file) throw new Error('ONNX Runtime wrote no profile');
    return nodesInLastRun(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ProfileEvent[]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
