import { cachedGraphPath, machineHashOf } from '../graph-cache';
import { loadSlot, stepNodesOf } from '../load-slot';
import type { LoadedSlot } from '../load-slot';
import type { ModelRunner } from '../model-runner';
import type { GraphCacheOutcome, LoadJob, SlotRunPath } from '../protocol';
import { mappedGraphWeights, releaseWeights } from '../read-weights';
import type { HeldWeights } from '../read-weights';
import { removeTemporary, slotGraphOf } from '../slot-graph';
import { loadBoundOrt } from './bound-library';
import type { BoundRunner } from './bound-runner';
import { BoundRunner as Runner } from './bound-runner';
import { boundIneligibility, boundSourceOf, openBoundOn, referenceFrom } from './bound-slot';
import type { BoundSource, OpenBound } from './bound-slot';
import { readVerdict, verdictFileOf, writeVerdict } from './bound-verdict';

/** The two session builders a slot's load uses; tests wrap them to count builds. */
export interface SlotLoadSeams {
  loadSlot: (job: LoadJob) => Promise<LoadedSlot>;
  openBound: OpenBound;
}

const REAL_SEAMS: SlotLoadSeams = { loadSlot, openBound: Runner.open.bind(Runner) };

/** A slot's load: exactly one of the two runners is set; `loaded.runner` is released when bound. */
export interface SlotRun {
  loaded: Omit<LoadedSlot, 'runner'>;
  runner: ModelRunner | null;
  bound: BoundRunner | null;
  runPath: SlotRunPath;
}

/**
 * Loads a slot holding one session at a time. The first load of a graph (cached optimized graph,
 * session options) builds onnxruntime-node's session, keeps its warm-up logits, releases it,
 * opens the bound session and compares, and records the verdict in the graph's cache entry; a
 * later load with a `bound` verdict opens only the bound session (compared against the recorded
 * reference), one with an `ort-node` verdict only onnxruntime-node's. A mismatch or failure runs
 * on onnxruntime-node, built again after the bound session is gone.
 */
export async function loadSlotRun(job: LoadJob, seams: SlotLoadSeams = REAL_SEAMS): Promise<SlotRun> {
  const library = loadBoundOrt();
  if (!library.isAvailable)
    return onNode(await seams.loadSlot(job), `bound run path unavailable: ${library.reason}`);
  const recorded = await fromVerdict(job, seams);
  if (recorded) return recorded;
  const loaded = await seams.loadSlot(job);
  const ineligible = boundIneligibility(job, loaded.provider.used, loaded.fusion);
  if (ineligible !== null) return onNode(loaded, ineligible);
  const source = boundSourceOf(job, loaded.graphCache);
  const verdictFile = verdictFileFor(job, source);
  const verdict = verdictFile ? readVerdict(verdictFile) : null;
  if (verdict?.path === 'ort-node') return onNode(loaded, verdict.reason);
  const reference = await referenceFrom(job, loaded);
  await loaded.runner.release();
  const bound = await openBoundOn(job, source, reference, seams.openBound);
  if ('runner' in bound) {
    if (verdictFile) writeVerdict(verdictFile, { path: 'bound', reference });
    // The bound session reads its own file: the host copy built for onnxruntime-node's session
    // (released above) has no reader left, so it goes and the slot reports what is really held.
    releaseWeights(loaded.weights);
    const weights = boundWeightsOf(source);
    return { loaded: { ...loaded, weights }, runner: null, bound: bound.runner, runPath: { path: 'bound' } };
  }
  if (verdictFile) writeVerdict(verdictFile, { path: 'ort-node', reason: bound.reason });
  releaseWeights(loaded.weights);
  return onNode(await seams.loadSlot(job), bound.reason);
}

function onNode(loaded: LoadedSlot, reason: string): SlotRun {
  return { loaded, runner: loaded.runner, bound: null, runPath: { path: 'ort-node', reason } };
}

/**
 * Where the verdict on `source` is recorded: in the cached graph's entry (it goes with the graph),
 * else in the cache folder keyed by the model revision and machine; null without a cache folder.
 */
function verdictFileFor(job: LoadJob, source: BoundSource): string | null {
  if (job.graphCacheDir === null) return null;
  if (source.isCached) {
    const entry = cachedGraphPath(job.graphCacheDir, job.modelRevision, 'cpu', job.canCachePrepacked).dir;
    return verdictFileOf(entry, source.options);
  }
  return verdictFileOf(job.graphCacheDir, source.options, `${job.modelRevision}|${machineHashOf('cpu')}`);
}

/** What a bound session on `source` holds of ours: no buffer (ONNX Runtime reads or maps the file). */
function boundWeightsOf(source: BoundSource): HeldWeights {
  return source.isCached ? mappedGraphWeights() : READ_BY_ORT;
}

/** A bound session built from the model's own file holds no buffer of ours. */
const READ_BY_ORT: HeldWeights = {
  info: {
    hostBytes: 0,
    isPinned: false,
    pinnedReason: 'read by ONNX Runtime from the model file (no copy of ours to lock)',
    lockedBytes: 0,
    residentPct: null,
  },
  buffers: [],
};

/**
 * The load with only the bound session, when a cached graph of this job has a `bound` verdict;
 * null when it has none, or when the bound session now fails or differs from the recorded
 * reference (then recorded `ort-node`, and the caller loads onnxruntime-node's).
 */
async function fromVerdict(job: LoadJob, seams: SlotLoadSeams): Promise<SlotRun | null> {
  const isCandidate =
    job.provider.provider === 'cpu' &&
    job.io.hasLengthInputs &&
    job.io.kvRows === 'start' &&
    job.graphCacheDir !== null;
  if (!isCandidate) return null;
  const cache = cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', job.canCachePrepacked);
  // A graph the cache may hold runs from its entry: none yet (or a broken one) is a first load.
  if (job.graphCacheSkip === null && (!cache.isPresent || cache.isUnusable)) return null;
  const graphCache: GraphCacheOutcome =
    job.graphCacheSkip === null
      ? { status: 'hit', reason: null }
      : { status: 'off', reason: job.graphCacheSkip };
  const source = boundSourceOf(job, graphCache);
  const verdictFile = verdictFileFor(job, source)!;
  const verdict = readVerdict(verdictFile);
  if (verdict?.path !== 'bound') return null;
  // A GroupQueryAttention graph is never fused: this decides without reading the model.
  const graph = await slotGraphOf(job, 'cpu');
  removeTemporary(graph);
  if (graph.fusion.status === 'fused') return null;
  const buildStartMs = performance.now();
  const bound = await openBoundOn(job, source, verdict.reference, seams.openBound);
  if (!('runner' in bound)) {
    writeVerdict(verdictFile, { path: 'ort-node', reason: bound.reason });
    return null;
  }
  const loaded: SlotRun['loaded'] = {
    weights: boundWeightsOf(source),
    provider: { requested: 'cpu', used: 'cpu', unavailableReason: null },
    graphCache,
    readMs: 0,
    // The bound open includes its warm-up forward: one figure, reported as the build.
    buildMs: performance.now() - buildStartMs,
    warmupMs: 0,
    stepNodes: stepNodesOf(graphCache, source.isCached ? cache : null),
    fusion: graph.fusion,
    io: job.io,
    fuseMs: 0,
  };
  return { loaded, runner: null, bound: bound.runner, runPath: { path: 'bound' } };
}
