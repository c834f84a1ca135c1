import { cachedGraphPath } from '../graph-cache';
import type { FusionOutcome } from '../../model/fuse-at-load/outcome';
import { KvBatch } from '../kv-batch';
import type { LoadedSlot } from '../load-slot';
import type { GraphCacheOutcome, LoadJob } from '../protocol';
import type { ExecutionProvider } from '../providers';
import type { RunnerOptions } from '../session-options';
import { BoundRunner } from './bound-runner';
import { referenceOf, referenceProblem } from './bound-verdict';
import type { ReferenceLogits } from './bound-verdict';

/**
 * Rows and tokens per row a slot's K/V buffer starts with; it grows as sequences need it (rows
 * to the seats taken, the capacity in whole pages: BoundRunner.ensureSize).
 */
const INITIAL_ROWS = 1;
const INITIAL_CAPACITY = 256;

/** The bound run path for a slot, or why the slot stays on onnxruntime-node. */
export type BoundSlot = { runner: BoundRunner } | { reason: string };

/** Opens a bound session (BoundRunner.open, or a counting wrapper of it in tests). */
export type OpenBound = typeof BoundRunner.open;

/** The graph file and session options a slot's bound session opens with. */
export interface BoundSource {
  file: string;
  options: RunnerOptions;
  /** Whether `file` is the graph cache's optimized graph (else the model's own file). */
  isCached: boolean;
}

/** Why a slot on `provider` running `fusion`'s graph cannot take the bound path, or null when it can. */
export function boundIneligibility(
  job: LoadJob,
  provider: ExecutionProvider,
  fusion: FusionOutcome,
): string | null {
  if (provider !== 'cpu') return `runs on ${provider}, the bound path on cpu only`;
  if (fusion.status === 'fused') return 'its graph was fused at load';
  if (!job.io.hasLengthInputs) return 'its graph does not run GroupQueryAttention';
  return null;
}

/**
 * The graph onnxruntime-node's session of the slot was built from: the optimized graph the load
 * saved or served (opened without the optimizer pass again), else the model's file.
 */
export function boundSourceOf(job: LoadJob, graphCache: GraphCacheOutcome): BoundSource {
  const isCached =
    job.graphCacheDir !== null && (graphCache.status === 'hit' || graphCache.status === 'saved');
  const options = { numThreads: job.numThreads, canSpinThreads: job.canSpinThreads };
  if (!isCached) return { file: job.onnxPath, options, isCached };
  const cache = cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', job.canCachePrepacked);
  return { file: cache.file, options: { ...options, graphOptimizationLevel: 'disabled' }, isCached };
}

/**
 * Opens the bound session on `source` and runs its warm-up; taken only when its logits match
 * onnxruntime-node's `reference`, any other outcome is a reason (and the session is released).
 */
export async function openBoundOn(
  job: LoadJob,
  source: BoundSource,
  reference: ReferenceLogits,
  open: OpenBound = BoundRunner.open.bind(BoundRunner),
): Promise<BoundSlot> {
  const spec = { file: job.file, io: job.io, geometry: job.geometry };
  const size = { maxRows: INITIAL_ROWS, capacity: INITIAL_CAPACITY, vocabSize: reference.vocabSize };
  let runner: BoundRunner;
  try {
    // The slot's worker does nothing else while a forward runs: it runs the forward itself.
    runner = await open(source.file, spec, source.options, size, 'caller');
  } catch (error) {
    return { reason: (error as Error).message };
  }
  const problem = await warmUpProblem(runner, reference).catch((error: Error) => error.message);
  if (problem === null) return { runner };
  runner.release();
  return { reason: problem };
}

/** onnxruntime-node's warm-up logits of a loaded slot, as a verdict keeps them. */
export async function referenceFrom(job: LoadJob, loaded: LoadedSlot): Promise<ReferenceLogits> {
  const result = await loaded.runner.forward(
    KvBatch.empty(job.geometry, ['warmup']),
    BigInt64Array.of(0n),
    1,
  );
  return referenceOf(result.logits);
}

/**
 * Opens the bound run path beside a slot onnxruntime-node just loaded and warmed (both sessions
 * at once: for tests; a slot's load goes through loadSlotRun, one session at a time).
 */
export async function openBoundSlot(job: LoadJob, loaded: LoadedSlot): Promise<BoundSlot> {
  const reason = boundIneligibility(job, loaded.provider.used, loaded.fusion);
  if (reason !== null) return { reason };
  return openBoundOn(job, boundSourceOf(job, loaded.graphCache), await referenceFrom(job, loaded));
}

/** Why the bound path's warm-up logits differ from the reference, or null when they agree. */
async function warmUpProblem(runner: BoundRunner, reference: ReferenceLogits): Promise<string | null> {
  const result = await runner.forward({ first: 0, count: 1 }, BigInt64Array.of(0n), 1);
  runner.kv.clear(0);
  return referenceProblem(reference, result.logits);
}
