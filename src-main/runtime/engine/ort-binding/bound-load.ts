import { cachedGraphPath } from '../graph-cache';
import { loadSlot, stepNodesOf } from '../load-slot';
import type { LoadedSlot } from '../load-slot';
import type { ModelRunner } from '../model-runner';
import type { LoadJob, SlotRunPath } from '../protocol';
import { mappedGraphWeights, releaseWeights } from '../read-weights';
import { removeTemporary, slotGraphOf } from '../slot-graph';
import { loadBoundOrt } from './bound-library';
import type { BoundRunner } from './bound-runner';
import { BoundRunner as Runner } from './bound-runner';
import { boundIneligibility, boundSourceOf, openBoundOn, referenceFrom } from './bound-slot';
import type { OpenBound } from './bound-slot';
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
  const verdictFile = loaded.graphCache.status === 'off' ? null : verdictFileOf(entryOf(job), source.options);
  const verdict = verdictFile ? readVerdict(verdictFile) : null;
  if (verdict?.path === 'ort-node') return onNode(loaded, verdict.reason);
  const reference = await referenceFrom(job, loaded);
  await loaded.runner.release();
  const bound = await openBoundOn(job, source, reference, seams.openBound);
  if ('runner' in bound) {
    if (verdictFile) writeVerdict(verdictFile, { path: 'bound', reference });
    return { loaded, runner: null, bound: bound.runner, runPath: { path: 'bound' } };
  }
  if (verdictFile) writeVerdict(verdictFile, { path: 'ort-node', reason: bound.reason });
  releaseWeights(loaded.weights);
  return onNode(await seams.loadSlot(job), bound.reason);
}

function onNode(loaded: LoadedSlot, reason: string): SlotRun {
  return { loaded, runner: loaded.runner, bound: null, runPath: { path: 'ort-node', reason } };
}

function entryOf(job: LoadJob): string {
  return cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', job.canCachePrepacked).dir;
}

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
    job.graphCacheDir !== null &&
    job.graphCacheSkip === null;
  if (!isCandidate) return null;
  const cache = cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', job.canCachePrepacked);
  if (!cache.isPresent || cache.isUnusable) return null;
  const source = boundSourceOf(job, { status: 'hit', reason: null });
  const verdictFile = verdictFileOf(cache.dir, source.options);
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
    weights: mappedGraphWeights(),
    provider: { requested: 'cpu', used: 'cpu', unavailableReason: null },
    graphCache: { status: 'hit', reason: null },
    readMs: 0,
    // The bound open includes its warm-up forward: one figure, reported as the build.
    buildMs: performance.now() - buildStartMs,
    warmupMs: 0,
    stepNodes: stepNodesOf({ status: 'hit', reason: null }, cache),
    fusion: graph.fusion,
    io: job.io,
    fuseMs: 0,
  };
  return { loaded, runner: null, bound: bound.runner, runPath: { path: 'bound' } };
}
