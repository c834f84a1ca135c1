import path from 'node:path';
import { getHostMemory } from '../host-memory';
import { KvBatch } from './kv-batch';
import {
  cacheRoomProblem,
  cachedGraphPath,
  commitGraph,
  discardGraph,
  GRAPH_DATA_FILE,
  GRAPH_FILE,
  graphEntryBytes,
  pendingGraphDir,
} from './graph-cache';
import type { CachedGraph } from './graph-cache';
import { ModelRunner } from './model-runner';
import type { GraphCacheOutcome, LoadJob } from './protocol';
import type { ExecutionProvider, ProviderOutcome } from './providers';
import { withProvider } from './providers';
import { mappedGraphWeights, readWeights } from './read-weights';
import type { HeldWeights, HostWeights } from './read-weights';

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

/** A loaded slot: its runner, what it holds in host memory, and how the load went. */
export interface LoadedSlot {
  runner: ModelRunner;
  weights: HeldWeights;
  provider: ProviderOutcome;
  graphCache: GraphCacheOutcome;
  readMs: number;
  buildMs: number;
  warmupMs: number;
}

interface Built {
  runner: ModelRunner;
  weights: HeldWeights;
  graphCache: GraphCacheOutcome;
  readMs: number;
  buildMs: number;
}

const specOf = (job: LoadJob) => ({ file: job.file, io: job.io, geometry: job.geometry });

function releaseAll(weights: HostWeights): void {
  for (const buffer of weights.buffers) buffer.release();
}

/**
 * Builds from the cached optimized graph when there is one; null when it fails (the entry is
 * removed and the caller loads from the model file). ORT reads the graph and maps its data
 * itself, so the load has no read step of its own: `readMs` is 0 and the build holds it.
 */
async function fromCachedGraph(
  job: LoadJob,
  provider: ExecutionProvider,
  cache: CachedGraph,
): Promise<Built | null> {
  const buildStartMs = performance.now();
  try {
    const runner = await ModelRunner.build(cache.file, specOf(job), {
      numThreads: job.numThreads,
      provider,
      graphOptimizationLevel: CACHED_GRAPH_LEVEL,
    });
    const buildMs = performance.now() - buildStartMs;
    const residency = getHostMemory().residency(path.join(cache.dir, GRAPH_DATA_FILE));
    return {
      runner,
      weights: mappedGraphWeights(graphEntryBytes(cache.dir), residency?.residentPct ?? null),
      graphCache: { status: 'hit', reason: null },
      readMs: 0,
      buildMs,
    };
  } catch (error) {
    discardGraph(cache.dir);
    console.warn(`optimized graph ${cache.dir} did not build and was removed: ${(error as Error).message}`);
    return null;
  }
}

/** Builds from the model's own file, asking ORT to save its optimized graph when a cache is set. */
async function fromSource(
  job: LoadJob,
  provider: ExecutionProvider,
  cache: CachedGraph | null,
): Promise<Built> {
  const readStartMs = performance.now();
  const weights = await readWeights(job);
  const buildStartMs = performance.now();
  const noRoom = cache
    ? cacheRoomProblem(path.dirname(cache.dir), weights.info.hostBytes, job.canCachePrepacked)
    : null;
  const pending = cache && noRoom === null ? pendingGraphDir(cache.dir) : undefined;
  const build = (saveTo?: string) =>
    ModelRunner.build(weights.weights, specOf(job), {
      numThreads: job.numThreads,
      provider,
      ...(saveTo
        ? { optimizedModelFilePath: path.join(saveTo, GRAPH_FILE), sessionConfig: saveGraphConfig(job) }
        : {}),
    });
  let runner: ModelRunner;
  let saveProblem: string | null = null;
  try {
    runner = await build(pending).catch(async (error: Error) => {
      if (!pending) throw error;
      // Saving can fail on its own (a graph over protobuf's 2 GiB, a full disk): build without it.
      discardGraph(pending);
      saveProblem = error.message;
      return build();
    });
  } catch (error) {
    if (pending) discardGraph(pending);
    releaseAll(weights);
    throw error;
  }
  const buildMs = performance.now() - buildStartMs;
  let graphCache: GraphCacheOutcome = { status: 'off', reason: 'no graph cache folder' };
  if (noRoom !== null) graphCache = { status: 'off', reason: `not saved: ${noRoom}` };
  else if (saveProblem !== null) graphCache = { status: 'off', reason: `not saved: ${saveProblem}` };
  else if (cache && pending) {
    try {
      commitGraph(pending, cache.dir);
      graphCache = { status: 'saved', reason: null };
    } catch (error) {
      discardGraph(pending);
      graphCache = { status: 'off', reason: `not saved: ${(error as Error).message}` };
    }
  }
  return { runner, weights, graphCache, readMs: buildStartMs - readStartMs, buildMs };
}

/**
 * The worker's load: the session on the slot's provider (cpu if that one cannot start and the
 * slot allows it), built from the cached optimized graph when one exists for this model
 * revision, machine and provider, else from the model file (saving the optimized graph); then
 * one warm-up forward.
 */
export async function loadSlot(job: LoadJob): Promise<LoadedSlot> {
  const { value: built, outcome } = await withProvider(job.provider, async (provider) => {
    const cache = job.graphCacheDir ? cachedGraphPath(job.graphCacheDir, job.modelRevision, provider) : null;
    const cached = cache?.isPresent ? await fromCachedGraph(job, provider, cache) : null;
    return cached ?? fromSource(job, provider, cache);
  });
  const warmupStartMs = performance.now();
  await built.runner.forward(KvBatch.empty(job.geometry, ['warmup']), BigInt64Array.of(0n), 1);
  return { ...built, provider: outcome, warmupMs: performance.now() - warmupStartMs };
}
