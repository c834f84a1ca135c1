import { randomUUID } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGraphSummary } from '../model/onnx-graph/graph-summary';
import { decoderIoOf } from '../model/decoder-io';
import { asExported } from '../model/fuse-at-load/outcome';
import type { FusionOutcome } from '../model/fuse-at-load/outcome';
import { cachedFusionResult, fuseAtLoad } from './fuse-at-load';
import type { FusionResult } from './fuse-at-load';
import { discardFusion, fusedGraphRevisionOf } from './fusion-cache';
import type { LoadJob } from './protocol';
import type { ExecutionProvider } from './providers';
import { readWeights, releaseWeights } from './read-weights';
import type { HostWeights } from './read-weights';

/** What the card says for a graph ONNX Runtime already runs fused (GroupQueryAttention). */
const ALREADY_FUSED_REASON = "it already runs ONNX Runtime's GroupQueryAttention";

/** The original's weights, read before the session build for fusion's check. */
export interface ReadAhead {
  weights: HostWeights;
}

/**
 * The graph a slot builds its session from after load-time fusion: the load job for it (the
 * original's, or the fused graph's: its file, how it is fed, its K/V geometry, its own key in
 * the optimized-graph cache), what fusion decided, the original's weights when they were read
 * for the check and the original runs (so they are not read twice), how long reading the
 * original took (part of the load's read whichever graph runs) and how long fusion took.
 */
export interface SlotGraph {
  job: LoadJob;
  fusion: FusionOutcome;
  readAhead: ReadAhead | null;
  readMs: number;
  fuseMs: number;
  /** A fused graph no cache holds, written for this load to read: remove it once the load is done. */
  temporaryFile: string | null;
}

/**
 * Decides which graph the slot runs (see SlotGraph): the original when fusion is off or the graph
 * already runs GroupQueryAttention; the cached decision of an earlier load when there is one
 * (without reading the original); else the original is read, recognized, rewritten and checked
 * (fuseAtLoad). Blocks the thread while it checks (the slot's worker).
 */
export async function slotGraphOf(job: LoadJob, provider: ExecutionProvider): Promise<SlotGraph> {
  const asIs = (fusion: FusionOutcome): SlotGraph => ({
    job,
    fusion,
    readAhead: null,
    readMs: 0,
    fuseMs: 0,
    temporaryFile: null,
  });
  if (!job.fusion.isOn) return asIs({ status: 'off', reason: 'fusion at load is off in Settings' });
  if (job.io.kvRows === 'start') return asIs({ status: 'already-fused', reason: ALREADY_FUSED_REASON });
  const startMs = performance.now();
  const cached = job.graphCacheDir
    ? cachedFusionResult(job.graphCacheDir, job.modelRevision, provider)
    : null;
  if (cached)
    return {
      ...graphOf(job, cached, provider),
      readAhead: null,
      readMs: 0,
      fuseMs: performance.now() - startMs,
    };
  const weights = await readWeights(job);
  const readMs = performance.now() - startMs;
  let result: FusionResult;
  try {
    result = await fuseAtLoad({
      file: job.file,
      original: weights.weights,
      io: job.io,
      geometry: job.geometry,
      hints: job.fusion.hints,
      modelRevision: job.modelRevision,
      provider,
      numThreads: job.numThreads,
      canSpinThreads: job.canSpinThreads,
      graphCacheDir: job.graphCacheDir,
    });
  } catch (error) {
    releaseWeights(weights);
    throw error;
  }
  const fuseMs = performance.now() - startMs - readMs;
  // Saved: load the fused graph from its cache entry rather than write it again elsewhere, with
  // this load's own outcome (the entry reads back as answered by the cache).
  const saved =
    result.cacheProblem === null && job.graphCacheDir
      ? cachedFusionResult(job.graphCacheDir, job.modelRevision, provider)
      : null;
  const graph = graphOf(job, saved ? { ...saved, outcome: result.outcome } : result, provider);
  if (graph.job === job) return { ...graph, readAhead: { weights }, readMs, fuseMs };
  releaseWeights(weights);
  return { ...graph, readAhead: null, readMs, fuseMs };
}

/**
 * The job of the graph fusion chose: the original's, or the fused graph's from its cached file
 * (or, when the cache does not hold it, from a temporary file this load reads once). A fused graph
 * that cannot be written or read back runs the original with the reason (a cached one is removed).
 */
function graphOf(
  job: LoadJob,
  result: FusionResult,
  provider: ExecutionProvider,
): Pick<SlotGraph, 'job' | 'fusion' | 'temporaryFile'> {
  if (result.fused === null) return { job, fusion: result.outcome, temporaryFile: null };
  const isCached = typeof result.fused === 'string';
  let temporaryFile: string | null = null;
  try {
    temporaryFile = typeof result.fused === 'string' ? null : writeTemporary(result.fused);
  } catch (error) {
    const why = `the fused graph could not be written to disk for this load: ${(error as Error).message}`;
    return exportedAfter(job, provider, `${why} (load cache: ${result.cacheProblem ?? 'none'})`, false);
  }
  const file = temporaryFile ?? (result.fused as string);
  try {
    const io = decoderIoOf(readGraphSummary(file), job.fusion.hints.shape, 0);
    const fusedJob: LoadJob = {
      ...job,
      file: `${job.file} (fused at load)`,
      onnxPath: file,
      externalData: [],
      io,
      geometry: { ...job.geometry, kvDtype: io.kvDtype, rows: io.kvRows },
      // The fused graph's own optimized graph: never the original's entry.
      modelRevision: fusedGraphRevisionOf(job.modelRevision),
    };
    return { job: fusedJob, fusion: result.outcome, temporaryFile };
  } catch (error) {
    if (temporaryFile) rmSync(temporaryFile, { force: true });
    const reason = `the fused graph could not be read back: ${(error as Error).message}`;
    return exportedAfter(job, provider, reason, isCached);
  }
}

/**
 * The original as exported after its fused graph failed on disk or in ONNX Runtime, said in the
 * log; `isCached`: the fusion cache chose that graph, so its entry is removed and a later load
 * rewrites and checks again rather than trust it.
 */
function exportedAfter(
  job: LoadJob,
  provider: ExecutionProvider,
  reason: string,
  isCached: boolean,
): Pick<SlotGraph, 'job' | 'fusion' | 'temporaryFile'> {
  console.warn(`${job.file}: runs as exported, ${reason}`);
  if (isCached && job.graphCacheDir) discardFusion(job.graphCacheDir, job.modelRevision, provider);
  return { job, fusion: asExported('graph', reason), temporaryFile: null };
}

/**
 * What a slot loads when the session of the fused graph `graph` chose did not build or warm up:
 * the original `job` as exported, the card saying why, the fusion entry removed (see
 * exportedAfter). Rethrows `error` when the graph that failed was the original itself.
 */
export function asExportedAfterFailure(
  job: LoadJob,
  graph: SlotGraph,
  provider: ExecutionProvider,
  error: Error,
): SlotGraph {
  if (graph.job === job) throw error;
  const reason = `ONNX Runtime could not load the fused graph: ${error.message}`;
  return { ...graph, ...exportedAfter(job, provider, reason, true), readAhead: null };
}

/** Writes a fused graph no cache holds to a file of its own; nothing is left when the write fails. */
function writeTemporary(bytes: Uint8Array): string {
  const file = path.join(os.tmpdir(), `ff-fused-${randomUUID()}.onnx`);
  try {
    writeFileSync(file, bytes);
  } catch (error) {
    // Part of it may be written (a full disk); existsSync, since rmSync's force still throws on ENOTDIR.
    if (existsSync(file)) rmSync(file, { force: true });
    throw error;
  }
  return file;
}

/** Removes the temporary fused file a load read (nothing when the graph came from the cache). */
export function removeTemporary(graph: SlotGraph): void {
  if (graph.temporaryFile) rmSync(graph.temporaryFile, { force: true });
}
