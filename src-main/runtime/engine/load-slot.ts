import { KvBatch } from './kv-batch';
import { cachedGraphPath, commitGraph, discardGraph, pendingGraphPath } from './graph-cache';
import { ModelRunner } from './model-runner';
import type { GraphCacheOutcome, LoadJob } from './protocol';
import type { ExecutionProvider, ProviderOutcome } from './providers';
import { withProvider } from './providers';
import { readWeights } from './read-weights';
import type { HostWeights } from './read-weights';

/**
 * The optimized graph is saved in ORT's own format (a flatbuffer): a session builds from it with
 * no protobuf parse, reading its initializers in place from the slot's host copy of the file
 * (which the worker keeps until the session is released) instead of copying them. ORT would
 * re-run its optimizers on a graph it already optimized unless told not to.
 */
const SAVE_GRAPH_CONFIG = { save_model_format: 'ORT' };
const CACHED_GRAPH_CONFIG = {
  use_ort_model_bytes_directly: '1',
  use_ort_model_bytes_for_initializers: '1',
};
const CACHED_GRAPH_LEVEL = 'disabled' as const;

/** A loaded slot: its runner, the host copy it was built from, and how the load went. */
export interface LoadedSlot {
  runner: ModelRunner;
  weights: HostWeights;
  provider: ProviderOutcome;
  graphCache: GraphCacheOutcome;
  readMs: number;
  buildMs: number;
  warmupMs: number;
}

interface Built {
  runner: ModelRunner;
  weights: HostWeights;
  graphCache: GraphCacheOutcome;
  readMs: number;
  buildMs: number;
}

const specOf = (job: LoadJob) => ({ file: job.file, io: job.io, geometry: job.geometry });

function releaseAll(weights: HostWeights): void {
  for (const buffer of weights.buffers) buffer.release();
}

/** Builds from the cached optimized graph when there is one; null when there is none or it fails. */
async function fromCachedGraph(
  job: LoadJob,
  provider: ExecutionProvider,
  file: string,
): Promise<Built | null> {
  const readStartMs = performance.now();
  // The saved graph holds every initializer inline: no external data to follow.
  const weights = await readWeights({ onnxPath: file, externalData: [] });
  const buildStartMs = performance.now();
  try {
    const runner = await ModelRunner.build(weights.weights, specOf(job), {
      numThreads: job.numThreads,
      provider,
      graphOptimizationLevel: CACHED_GRAPH_LEVEL,
      sessionConfig: CACHED_GRAPH_CONFIG,
    });
    const buildMs = performance.now() - buildStartMs;
    return {
      runner,
      weights,
      graphCache: { status: 'hit', reason: null },
      readMs: buildStartMs - readStartMs,
      buildMs,
    };
  } catch (error) {
    releaseAll(weights);
    discardGraph(file);
    console.warn(`optimized graph ${file} did not build and was removed: ${(error as Error).message}`);
    return null;
  }
}

/** Builds from the model's own file, asking ORT to save its optimized graph when a cache is set. */
async function fromSource(job: LoadJob, provider: ExecutionProvider, file: string | null): Promise<Built> {
  const readStartMs = performance.now();
  const weights = await readWeights(job);
  const buildStartMs = performance.now();
  const pending = file ? pendingGraphPath(file) : undefined;
  const build = (optimizedModelFilePath?: string) =>
    ModelRunner.build(weights.weights, specOf(job), {
      numThreads: job.numThreads,
      provider,
      ...(optimizedModelFilePath ? { optimizedModelFilePath, sessionConfig: SAVE_GRAPH_CONFIG } : {}),
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
    releaseAll(weights);
    throw error;
  }
  const buildMs = performance.now() - buildStartMs;
  let graphCache: GraphCacheOutcome = { status: 'off', reason: 'no graph cache folder' };
  if (saveProblem !== null) graphCache = { status: 'off', reason: `not saved: ${saveProblem}` };
  else if (file && pending) {
    try {
      commitGraph(pending, file);
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
    const cached = cache?.isPresent ? await fromCachedGraph(job, provider, cache.file) : null;
    return cached ?? fromSource(job, provider, cache?.file ?? null);
  });
  const warmupStartMs = performance.now();
  await built.runner.forward(KvBatch.empty(job.geometry, ['warmup']), BigInt64Array.of(0n), 1);
  return { ...built, provider: outcome, warmupMs: performance.now() - warmupStartMs };
}
