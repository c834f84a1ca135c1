import { layoutRevisionOf } from '../model/revisions';
import { GGUF_VARIANT } from '../model/variants';
import type { PageIdentity } from '../pages/page-key';
import type { LoadJob, LoadedReply } from '../slot-worker/protocol';
import type { ProviderChoice } from '../slot-worker/providers';
import { kvGeometryOf } from '../model/kv-geometry';
import { graphCacheBytesOf } from './slot';
import type { Slot } from './slot';
import type { SlotRegistryOptions } from './slot-registry-options';
import { slotGeometryOf } from './slot-geometry';

/** How the registry builds sessions: its options a load job carries. */
export type SlotBuildOptions = Pick<
  SlotRegistryOptions,
  'numThreads' | 'canSpinThreads' | 'graphCacheDir' | 'canFuseAtLoad'
>;

/**
 * A converted GGUF's graph is written already fused, and quantized graphs are cached without
 * ORT's packed weights (LoadJob.canCachePrepacked), so a saved copy skips only the optimizer
 * pass: on a 1B Q4_K_M it started 0.5–1.5 s sooner out of 9 s, for 1.47 GB more on disk.
 */
const CONVERTED_GRAPH_SKIP =
  'not saved: a converted GGUF graph is already in the form ONNX Runtime runs; a copy would double its disk for a second or so of start';

/** The worker job that builds the slot's session (graph, threads, provider, graph cache, load-time fusion). */
export function loadJobOf(slot: Slot, provider: ProviderChoice, build: SlotBuildOptions): LoadJob {
  const { numThreads, canSpinThreads, graphCacheDir, canFuseAtLoad } = build;
  const { graph } = slot.model;
  return {
    type: 'load',
    file: graph.file,
    onnxPath: graph.onnxPath,
    externalData: graph.externalData.map(({ location, path }) => ({ location, path })),
    io: graph.io,
    modelRevision: slot.model.revisions.modelRevision,
    geometry: kvGeometryOf(slot.model),
    numThreads,
    canSpinThreads,
    provider,
    graphCacheDir,
    canCachePrepacked: !graph.hasQuantizedWeights,
    graphCacheBytes: graphCacheBytesOf(slot.model, !graph.hasQuantizedWeights),
    graphCacheSkip: slot.model.variant === GGUF_VARIANT ? CONVERTED_GRAPH_SKIP : null,
    fusion: {
      isOn: canFuseAtLoad,
      hints: { shape: slot.model.folder.shape, config: slot.model.folder.config },
    },
  };
}

/**
 * Records a built session on its slot: host memory, provider, timings, the threads its job
 * built it with, a new slot revision and page identity.
 */
export function applyLoaded(slot: Slot, job: LoadJob, loaded: LoadedReply, pageSize: number): void {
  slot.host = loaded.host;
  slot.provider = loaded.provider;
  slot.graphCache = loaded.graphCache;
  slot.stepNodes = loaded.stepNodes;
  slot.fusion = loaded.fusion;
  slot.runPath = loaded.runPath;
  slot.kvBufferBytes = null;
  slot.graphIo = loaded.io;
  slot.loadTimings = {
    readMs: loaded.readMs,
    fuseMs: loaded.fuseMs,
    buildMs: loaded.buildMs,
    warmupMs: loaded.warmupMs,
  };
  slot.sessionThreads = { numThreads: job.numThreads, canSpinThreads: job.canSpinThreads };
  slot.slotRevision += 1;
  slot.pageIdentity = pageIdentityOf(slot, pageSize);
}

/** The revisions every context page of this slot's session is keyed by. */
function pageIdentityOf(slot: Slot, pageSize: number): PageIdentity {
  const { modelRevision, tokenizerRevision } = slot.model.revisions;
  const { kvDtype } = slotGeometryOf(slot);
  const layoutRevision = layoutRevisionOf(slot.model.folder.shape, pageSize, kvDtype);
  return { modelRevision, tokenizerRevision, layoutRevision, slotRevision: slot.slotRevision };
}
