import type { CatalogueModel } from '../model/catalogue';
import type { DecoderIo } from '../model/decoder-io';
import type { FusionOutcome } from '../model/fuse-at-load/outcome';
import type { PageIdentity } from '../pages/page-key';
import type {
  GraphCacheOutcome,
  HostBufferInfo,
  LoadedReply,
  LoadJob,
  StepJob,
  SteppedReply,
  SlotRunPath,
  StepNodes,
} from '../slot-worker/protocol';
import type { ExecutionProvider, ProviderOutcome } from '../slot-worker/providers';
import { DEFAULT_KEEP_ALIVE } from './slot-types';
import type { KeepAlive, SlotStatus } from './slot-types';

/** What a slot needs from its executor (the worker's main-thread handle, or a test double). */
export interface SlotRunner {
  readonly isBusy: boolean;
  load(job: LoadJob): Promise<LoadedReply>;
  step(job: StepJob): Promise<SteppedReply>;
  /** Asks the job in flight to end its decode burst after its current step (BurstCutNotice); a no-op when none is in flight. */
  cutBurst?(): void;
  /** Tells an idle executor a job is on its way, so it is awake when the job comes (WakeNotice); a no-op while one runs. */
  wake?(): void;
  close(): Promise<void>;
  /** Tells `listener` once, with the reason, if the executor dies on its own (not through close). */
  onExit?(listener: (reason: string) => void): void;
}

/** How far a load's conversion has come: bytes of the source file done, of its total. */
export interface SlotConversion {
  bytesDone: number;
  bytesTotal: number;
  /** Wall-clock epoch ms when the conversion began. */
  startedAtWallMs: number;
}

/** How a session runs its threads: ONNX Runtime's intra-op pool size, and whether that pool spins. */
export type SessionThreads = Pick<LoadJob, 'numThreads' | 'canSpinThreads'>;

/**
 * Prepared state for one model: its runner (worker + session), how its weights sit in host
 * memory, and its keep-alive. Mutated only by the SlotRegistry (through its helpers in slots/);
 * everyone else reads.
 */
export interface Slot {
  slotId: string;
  model: CatalogueModel;
  status: SlotStatus;
  failureReason: string | null;
  runner: SlotRunner | null;
  /** Bumps every time the session is (re)built; part of every page key. */
  slotRevision: number;
  pageIdentity: PageIdentity | null;
  host: HostBufferInfo | null;
  /** The provider this slot asks for (the runtime's per-slot option). */
  requestedProvider: ExecutionProvider;
  /** The provider the session runs on, and why not the one asked for (null until loaded). */
  provider: ProviderOutcome | null;
  /** Whether the last load built from a cached optimized graph. */
  graphCache: GraphCacheOutcome | null;
  /** Nodes ONNX Runtime runs per decode step, as the last load counted them. */
  stepNodes: StepNodes | null;
  /** Which graph the last load runs: fused at load, as exported (and why), already fused. */
  fusion: FusionOutcome | null;
  /** Which way the last load runs the K/V: the bound path, or onnxruntime-node and why (null until loaded). */
  runPath: SlotRunPath | null;
  /**
   * Bytes of the slot's one K/V buffer as its worker last reported them (the bound path: every
   * row's whole capacity, retained pasts included; the K/V budget counts its grant, kv-grant.ts);
   * null while its K/V lives in per-step arrays.
   */
  kvBufferBytes: number | null;
  /**
   * How the graph the session runs is fed (the fused graph's after fusion at load: float32 K/V,
   * start-aligned rows), null until this slot loads: its pages and K/V budget follow it (slotGeometryOf).
   */
  graphIo: DecoderIo | null;
  /** Estimated resident bytes (host buffer + session), counted against the slot budget. */
  footprintBytes: number;
  keepAlive: KeepAlive;
  /** Monotonic ms when an idle slot will be unloaded, or null. */
  expiresAt: number | null;
  numHits: number;
  lastUsedAt: number | null;
  lastUsedWallMs: number | null;
  loadTimings: { readMs: number; fuseMs: number; buildMs: number; warmupMs: number } | null;
  /** The threads the last load built its session with (from its load job), null until loaded. */
  sessionThreads: SessionThreads | null;
  /** The conversion its load is doing now (a GGUF file into the graph cache), or null. */
  conversion: SlotConversion | null;
  /**
   * A newer revision of the model has its own slot: this one takes no new requests, finishes
   * (drains) the sequences already bound to it, then closes its runner.
   */
  isRetiring: boolean;
}

/**
 * Estimated bytes a slot occupies: the host copy of the weight files plus the session's copy.
 * fp16-stored weights of an fp32 graph are widened to fp32 by the session (cast folding), so
 * their session copy is counted twice; quantized and fp32 weights are held as stored. A load
 * from the cached optimized graph holds no host copy (ORT maps the cache's data file and keeps
 * only what it uses): the estimate stays the model file's, an over-count for those loads.
 */
export function footprintOf(model: CatalogueModel): number {
  return 2 * model.graph.weightBytes * widenFactorOf(model);
}

/**
 * Upper bound of the model's optimized-graph cache entry (bytes): its weights at the session's
 * width, twice when ORT's pre-packed copy is saved beside them.
 */
export function graphCacheBytesOf(model: CatalogueModel, hasPrepacked: boolean): number {
  return model.graph.weightBytes * widenFactorOf(model) * (hasPrepacked ? 2 : 1);
}

/** 2 when the session widens fp16-stored weights to fp32 (cast folding), else 1. */
function widenFactorOf(model: CatalogueModel): number {
  const { weightDtype, io } = model.graph;
  return weightDtype.startsWith('fp16') && io.logitsDtype === 'float32' ? 2 : 1;
}

/** The last load's whole time (ms): read, fusion, session build and warm-up; null before the first load. */
export function loadMsOf(slot: Pick<Slot, 'loadTimings'>): number | null {
  const t = slot.loadTimings;
  return t ? t.readMs + t.fuseMs + t.buildMs + t.warmupMs : null;
}

/** A fresh slot for a model (status `empty`); a replaced slot passes on its revision count and keep-alive. */
export function newSlot(
  model: CatalogueModel,
  previous: Slot | undefined,
  generation: number,
  provider: ExecutionProvider,
): Slot {
  return {
    slotId: slotIdOf(model.modelId, generation),
    model,
    status: 'empty',
    failureReason: null,
    runner: null,
    slotRevision: previous?.slotRevision ?? 0,
    pageIdentity: null,
    host: null,
    requestedProvider: provider,
    provider: previous?.provider ?? null,
    graphCache: previous?.graphCache ?? null,
    stepNodes: previous?.stepNodes ?? null,
    fusion: previous?.fusion ?? null,
    runPath: previous?.runPath ?? null,
    kvBufferBytes: null,
    graphIo: null,
    footprintBytes: footprintOf(model),
    keepAlive: previous?.keepAlive ?? DEFAULT_KEEP_ALIVE,
    expiresAt: null,
    numHits: 0,
    lastUsedAt: null,
    lastUsedWallMs: null,
    loadTimings: null,
    sessionThreads: null,
    conversion: null,
    isRetiring: false,
  };
}

/** `slot-<model>` for a model's first slot, `slot-<model>-<n>` for the n-th revision after it. */
export function slotIdOf(modelId: string, generation: number): string {
  return generation === 1 ? `slot-${modelId}` : `slot-${modelId}-${generation}`;
}

/** Waits out a step that is still finishing (freeing K/V of a finished request), at most 10 s. */
export async function waitUntilIdle(slot: Slot): Promise<void> {
  for (let waitedMs = 0; slot.runner?.isBusy && waitedMs < 10_000; waitedMs += 5)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Bytes as MB with one decimal, for messages. */
export function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
