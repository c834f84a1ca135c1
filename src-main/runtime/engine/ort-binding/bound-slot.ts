import { cachedGraphPath } from '../graph-cache';
import { KvBatch } from '../kv-batch';
import type { LoadedSlot } from '../load-slot';
import type { LoadJob } from '../protocol';
import { BoundRunner } from './bound-runner';

/**
 * Rows and tokens per row a slot's K/V buffer starts with; it grows as sequences need it (rows
 * double, so a free row, which costs its whole capacity, is rare).
 */
const INITIAL_ROWS = 1;
const INITIAL_CAPACITY = 256;
/** Largest |difference| between the two paths' warm-up logits, relative to the largest logit. */
const MAX_RELATIVE_DIFF = 1e-4;

/** The bound run path for a loaded slot, or why the slot stays on onnxruntime-node. */
export type BoundSlot = { runner: BoundRunner } | { reason: string };

/**
 * Opens the bound run path for a slot onnxruntime-node just loaded and warmed: same graph (the
 * optimized graph the load saved or served, else the model's file), same session options. It
 * is taken only when its warm-up logits equal onnxruntime-node's; any other outcome is a reason
 * and the slot runs as before. The caller then releases the onnxruntime-node session.
 */
export async function openBoundSlot(job: LoadJob, loaded: LoadedSlot): Promise<BoundSlot> {
  if (loaded.provider.used !== 'cpu')
    return { reason: `runs on ${loaded.provider.used}, the bound path on cpu only` };
  if (loaded.fusion.status === 'fused') return { reason: 'its graph was fused at load' };
  if (!job.io.hasLengthInputs) return { reason: 'its graph does not run GroupQueryAttention' };
  const isCached =
    job.graphCacheDir !== null &&
    (loaded.graphCache.status === 'hit' || loaded.graphCache.status === 'saved');
  const source = isCached
    ? cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', job.canCachePrepacked).file
    : job.onnxPath;
  const reference = await loaded.runner.forward(
    KvBatch.empty(job.geometry, ['warmup']),
    BigInt64Array.of(0n),
    1,
  );
  const spec = { file: job.file, io: job.io, geometry: job.geometry };
  const options = {
    numThreads: job.numThreads,
    canSpinThreads: job.canSpinThreads,
    ...(isCached ? { graphOptimizationLevel: 'disabled' as const } : {}),
  };
  const size = { maxRows: INITIAL_ROWS, capacity: INITIAL_CAPACITY, vocabSize: reference.vocabSize };
  let runner: BoundRunner;
  try {
    runner = await BoundRunner.open(source, spec, options, size);
  } catch (error) {
    return { reason: (error as Error).message };
  }
  const problem = await warmUpProblem(runner, reference.logits).catch((error: Error) => error.message);
  if (problem === null) return { runner };
  runner.release();
  return { reason: problem };
}

/** Why the bound path's warm-up logits differ from onnxruntime-node's, or null when they agree. */
async function warmUpProblem(runner: BoundRunner, expected: Float32Array): Promise<string | null> {
  const result = await runner.forward({ first: 0, count: 1 }, BigInt64Array.of(0n), 1);
  runner.kv.clear(0);
  const { logits } = result;
  if (logits.length !== expected.length)
    return `warm-up gave ${logits.length} logits, not ${expected.length}`;
  let scale = 0;
  let diff = 0;
  for (let i = 0; i < logits.length; i++) {
    scale = Math.max(scale, Math.abs(expected[i]!));
    diff = Math.max(diff, Math.abs(logits[i]! - expected[i]!));
  }
  return Number.isFinite(diff) && diff <= MAX_RELATIVE_DIFF * scale
    ? null
    : `its warm-up logits differ from onnxruntime-node's (largest difference ${diff})`;
}
