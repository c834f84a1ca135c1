import path from 'node:path';
import { KvBatch } from './kv-batch';
import {
  cacheSpaceProblem,
  cachedGraphPath,
  commitGraph,
  discardGraph,
  GRAPH_DATA_FILE,
  GRAPH_FILE,
  markUnusable,
  pendingGraphDir,
} from './graph-cache';
import type { CachedGraph } from './graph-cache';
import { ModelRunner } from './model-runner';
import { readGraphSummary } from '../model/onnx-graph/graph-summary';
import type { GraphCacheOutcome, LoadedReply, LoadJob, StepNodes } from './protocol';
import type { ExecutionProvider } from './providers';
import { withProvider } from './providers';
import { mappedGraphWeights, readGraphMappingData, readWeights, releaseWeights } from './read-weights';
import { asExportedAfterFailure, removeTemporary, slotGraphOf } from './slot-graph';
import type { ReadAhead, SlotGraph } from './slot-graph';
import type { HeldWeights } from './read-weights';
import { brokenScoresOf, describeBrokenScores } from '../sampling/broken-scores';
import type { BrokenScores } from '../sampling/broken-scores';

/**
 * The optimized graph is saved as ONNX with every initializer in one external data file, and
 * with ORT's pre-packed copy of each weight it packs (its MatMul layouts) saved there too: a
 * session built from the entry maps that file and skips both the optimizer pass (told not to
 * run it again on a graph it already optimized) and the packing, most of a cold build.
 * ORT's own flatbuffer format cannot hold pre-packed weights. Quantized graphs are saved
 * without them (see LoadJob.canCachePrepacked) and still skip the optimizer pass.
 */
const saveGraphConfig = (job: LoadJob): Record<string, string> => ({
  optimized_model_external_initializers_file_name: GRAPH_DATA_FILE,
  optimized_model_external_initializers_min_size_in_bytes: '1024',
  ...(job.canCachePrepacked ? { save_external_prepacked_constant_initializers: '1' } : {}),
});
const CACHED_GRAPH_LEVEL = 'disabled' as const;

/**
 * A loaded slot: its runner and what it holds in host memory, beside how the load went (the
 * worker's LoadedReply without the wire tag, the host buffer's summary, which `weights` holds,
 * and the run path, which is chosen after this load: ort-binding/bound-load.ts).
 */
export interface LoadedSlot extends Omit<LoadedReply, 'type' | 'host' | 'runPath'> {
  runner: ModelRunner;
  weights: HeldWeights;
}

interface Built {
  runner: ModelRunner;
  weights: HeldWeights;
  graphCache: GraphCacheOutcome;
  readMs: number;
  buildMs: number;
}

const specOf = (job: LoadJob) => ({ file: job.file, io: job.io, geometry: job.geometry });

/**
 * Builds from the model's own file (or the weights fusion already read from it), asking ORT to
 * save its optimized graph when a cache is set.
 */
async function fromSource(
  job: LoadJob,
  provider: ExecutionProvider,
  cache: CachedGraph | null,
  readAhead: ReadAhead | null,
): Promise<Built> {
  const readStartMs = performance.now();
  // Fusion's read ahead holds the data files already; otherwise ORT maps them (readGraphMappingData).
  const weights =
    readAhead?.weights ??
    (await (job.externalData.length > 0 ? readGraphMappingData(job) : readWeights(job)));
  const buildStartMs = performance.now();
  // Read ahead, the read is fusion's (slotGraphOf's readMs), counted once by loadSlot.
  const readMs = readAhead ? 0 : buildStartMs - readStartMs;
  const save = cache
    ? prepareSave(job, cache)
    : { pending: null, problem: job.graphCacheSkip ?? 'no graph cache folder' };
  const build = (saveTo: string | null) =>
    ModelRunner.build(weights.weights, specOf(job), {
      numThreads: job.numThreads,
      canSpinThreads: job.canSpinThreads,
      provider,
      ...(saveTo
        ? { optimizedModelFilePath: path.join(saveTo, GRAPH_FILE), sessionConfig: saveGraphConfig(job) }
        : {}),
    });
  let runner: ModelRunner;
  let saveProblem = save.problem;
  try {
    runner = await build(save.pending).catch(async (error: Error) => {
      if (!save.pending) throw error;
      // Saving can fail on its own (a full disk, a graph ORT cannot serialize): build without it.
      discardGraph(save.pending);
      saveProblem = `not saved: ${error.message}`;
      return build(null);
    });
  } catch (error) {
    if (save.pending) discardGraph(save.pending);
    releaseWeights(weights);
    throw error;
  }
  const buildMs = performance.now() - buildStartMs;
  const graphCache: GraphCacheOutcome =
    saveProblem !== null || !save.pending || !cache
      ? { status: 'off', reason: saveProblem }
      : commitSave(save.pending, cache);
  return { runner, weights, graphCache, readMs, buildMs };
}

/**
 * A pending folder for the save, or why there is none: not enough free disk, or a cache folder
 * that cannot be written. Never throws: the cache is an optimization, the load goes on without it.
 */
function prepareSave(job: LoadJob, cache: CachedGraph): { pending: string | null; problem: string | null } {
  const parent = path.dirname(cache.dir);
  try {
    const spaceProblem = cacheSpaceProblem(parent, job.graphCacheBytes);
    if (spaceProblem !== null) return { pending: null, problem: `not saved: ${spaceProblem}` };
    return { pending: pendingGraphDir(cache.dir), problem: null };
  } catch (error) {
    return { pending: null, problem: `not saved: cannot prepare ${parent}: ${(error as Error).message}` };
  }
}

/** Moves a written save into place; the outcome the slot reports. */
function commitSave(pending: string, cache: CachedGraph): GraphCacheOutcome {
  try {
    commitGraph(pending, cache.dir);
    return { status: 'saved', reason: null };
  } catch (error) {
    discardGraph(pending);
    return { status: 'off', reason: `not saved: ${(error as Error).message}` };
  }
}

/** A built session after its warm-up forward. */
interface Warmed extends Built {
  warmupMs: number;
}

/**
 * One warm-up forward; whether its logits look like a model's (finite, not all zero), and what
 * is broken about them when they are NaN or infinite.
 */
async function warmUp(
  job: LoadJob,
  built: Built,
): Promise<{ warmed: Warmed; isSound: boolean; broken: BrokenScores | null }> {
  const startMs = performance.now();
  const result = await built.runner.forward(KvBatch.empty(job.geometry, ['warmup']), BigInt64Array.of(0n), 1);
  const logits = result.logits;
  const isSound = logits.every(Number.isFinite) && logits.some((value) => value !== 0);
  const broken = logits.some((value) => !Number.isFinite(value)) ? brokenScoresOf(logits) : null;
  return { warmed: { ...built, warmupMs: performance.now() - startMs }, isSound, broken };
}

/**
 * Builds from the cached optimized graph and warms it up; null when the entry does not build
 * (removed: the caller loads from the model file and saves it again) or computes garbage
 * (removed and its key marked, so it is not saved again). ORT reads the graph and maps its data
 * itself: no read step of ours (`readMs` 0), and no buffer of ours to hold.
 */
async function fromCachedGraph(
  job: LoadJob,
  provider: ExecutionProvider,
  cache: CachedGraph,
): Promise<Warmed | null> {
  const buildStartMs = performance.now();
  let runner: ModelRunner;
  try {
    runner = await ModelRunner.build(cache.file, specOf(job), {
      numThreads: job.numThreads,
      canSpinThreads: job.canSpinThreads,
      provider,
      graphOptimizationLevel: CACHED_GRAPH_LEVEL,
    });
  } catch (error) {
    discardGraph(cache.dir);
    console.warn(`optimized graph ${cache.dir} did not build and was removed: ${(error as Error).message}`);
    return null;
  }
  const built = {
    runner,
    weights: mappedGraphWeights(),
    graphCache: { status: 'hit' as const, reason: null },
    readMs: 0,
    buildMs: performance.now() - buildStartMs,
  };
  const warm = await warmUp(job, built).catch((error: Error) => ({ problem: error.message }));
  if ('isSound' in warm && warm.isSound) return warm.warmed;
  await runner.release();
  const why =
    'problem' in warm
      ? `its warm-up failed (${warm.problem})`
      : 'its warm-up logits were all zero or not finite';
  markUnusable(cache.dir, why);
  console.warn(`optimized graph ${cache.dir} was removed and will not be saved again: ${why}`);
  return null;
}

/** What a load reports when its key's saved graph computed garbage once. */
const UNUSABLE_OUTCOME: GraphCacheOutcome = {
  status: 'off',
  reason:
    'not saved: a saved graph of this model gave unusable logits here (see the log); delete its ".unusable" marker in the graph cache folder to try again',
};

/**
 * The worker's load: the session on the slot's provider (cpu if that one cannot start and the
 * slot allows it), of the graph load-time fusion chose (slot-graph.ts: the fused graph, or the
 * original as exported), built from the cached optimized graph when a usable one exists for that
 * graph, machine and provider, else from the graph's file (saving the optimized graph when it
 * may); then one warm-up forward.
 */
export async function loadSlot(job: LoadJob): Promise<LoadedSlot> {
  const { value: loaded, outcome } = await withProvider(job.provider, async (provider) => {
    const graph = await slotGraphOf(job, provider);
    try {
      // A fused graph ONNX Runtime cannot load (a cached file damaged on disk) runs the original.
      return await loadGraph(graph, provider).catch((error: Error) =>
        loadGraph(asExportedAfterFailure(job, graph, provider, error), provider),
      );
    } finally {
      removeTemporary(graph);
    }
  });
  return { ...loaded, provider: outcome };
}

async function loadGraph(
  graph: SlotGraph,
  provider: ExecutionProvider,
): Promise<Omit<LoadedSlot, 'provider'>> {
  const warmed = await loadOn(graph.job, provider, graph.readAhead);
  const readMs = warmed.readMs + graph.readMs;
  return { ...warmed, readMs, fusion: graph.fusion, io: graph.job.io, fuseMs: graph.fuseMs };
}

/**
 * Nodes ONNX Runtime runs per decode step, counted in the optimized graph it saved for this slot
 * (the graph cache's entry, read without its weights); null with the reason when there is none.
 */
export function stepNodesOf(graphCache: GraphCacheOutcome, cache: CachedGraph | null): StepNodes {
  if (!cache || graphCache.status === 'off')
    return { count: null, reason: 'counted in the saved optimized graph, and none was saved' };
  try {
    return { count: readGraphSummary(cache.file).numStepNodes, reason: null };
  } catch (error) {
    return {
      count: null,
      reason: `the saved optimized graph could not be read: ${(error as Error).message}`,
    };
  }
}

async function loadOn(
  job: LoadJob,
  provider: ExecutionProvider,
  readAhead: ReadAhead | null,
): Promise<Warmed & { stepNodes: StepNodes }> {
  const cacheOf = () =>
    job.graphCacheDir
      ? cachedGraphPath(job.graphCacheDir, job.modelRevision, provider, job.canCachePrepacked)
      : null;
  if (job.graphCacheSkip !== null) {
    const leftover = cacheOf();
    if (leftover?.isPresent) discardGraph(leftover.dir); // saved by a version that still cached this graph
    return fromSourceWarmed(job, provider, null, readAhead);
  }
  const cache = cacheOf();
  if (cache?.isPresent && !cache.isUnusable) {
    const cached = await fromCachedGraph(job, provider, cache);
    if (cached) {
      if (readAhead) releaseWeights(readAhead.weights);
      return { ...cached, stepNodes: stepNodesOf(cached.graphCache, cache) };
    }
  }
  // Read again: the cached graph may just have been marked unusable.
  if (cacheOf()?.isUnusable) {
    const warmed = await fromSourceWarmed(job, provider, null, readAhead);
    return { ...warmed, graphCache: UNUSABLE_OUTCOME };
  }
  return fromSourceWarmed(job, provider, cache, readAhead);
}

/**
 * Builds from the graph's file (saving into `cache` when given) and warms up; fails with the
 * plain reason when the warm-up's scores are NaN or infinite (the model's own weights are broken).
 */
async function fromSourceWarmed(
  job: LoadJob,
  provider: ExecutionProvider,
  cache: CachedGraph | null,
  readAhead: ReadAhead | null,
): Promise<Warmed & { stepNodes: StepNodes }> {
  const built = await fromSource(job, provider, cache, readAhead);
  const release = async (): Promise<void> => {
    // A session that cannot run its warm-up is not kept: its memory goes before the caller decides.
    await built.runner.release();
    releaseWeights(built.weights);
  };
  const { warmed, broken } = await warmUp(job, built).catch(async (error: Error) => {
    await release();
    throw error;
  });
  // The model's own weights (not a saved graph) give NaN or ∞: every answer would be an error.
  if (broken !== null) {
    await release();
    throw new Error(describeBrokenScores(broken));
  }
  return { ...warmed, stepNodes: stepNodesOf(warmed.graphCache, cache) };
}
