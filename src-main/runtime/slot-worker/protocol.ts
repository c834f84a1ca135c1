import type { KvGrant } from '../scheduler/kv-grant';
import type { SamplerStart } from '../sampling/sampler';
import type { BrokenScores } from '../sampling/broken-scores';
import type { PageData } from '../pages/page-data';
import type { KvGeometry } from '../model/kv-geometry';
import type { DecoderIo } from '../model/decoder-io';
import type { FusionOutcome } from '../model/fuse-at-load/outcome';
import type { RecognizeHints } from '../model/fuse-at-load/recognize';
import type { GraphCacheStatus } from './graph-cache-status';
import type { ProviderChoice, ProviderOutcome } from './providers';

/**
 * Messages between the main thread (which schedules) and a slot's worker (which owns the
 * ONNX Runtime session). One job is in flight per worker at a time: that is the slot's lock.
 * Instants (`*At`) are stamped in the worker on the process-aligned clock.
 */
export interface LoadJob {
  type: 'load';
  /** The variant's ONNX file as the folder names it (`onnx/model_q4.onnx`), for errors. */
  file: string;
  /** Real paths checked at listing to lie inside the model folder. */
  onnxPath: string;
  /** External data files: the name the graph uses and the real path to read. */
  externalData: Array<{ location: string; path: string }>;
  io: DecoderIo;
  /** Keys the cached optimized graph (with the machine and provider). */
  modelRevision: string;
  geometry: KvGeometry;
  numThreads: number;
  /** Whether the session's pool threads spin while a run computes (the setting `canSpinThreads`). */
  canSpinThreads: boolean;
  provider: ProviderChoice;
  /** Folder of ORT's optimized graphs; null builds from the model file every time. */
  graphCacheDir: string | null;
  /**
   * Whether the cached graph may hold ORT's pre-packed weights. Not for quantized graphs: ORT
   * 1.30 reads MatMulNBits weights it saved pre-packed back wrong (all-zero logits, measured).
   */
  canCachePrepacked: boolean;
  /** Upper bound of the cache entry's size (bytes), checked against free disk before saving. */
  graphCacheBytes: number;
  /**
   * Why this graph gets no optimized copy in the cache (one left by an earlier version is
   * removed), or null when it may: see slot-load.ts for the graphs that do not pay for one.
   */
  graphCacheSkip: string | null;
  /** Load-time fusion (slot-graph.ts): whether the setting allows it, and config.json's geometry for the recognizer. */
  fusion: { isOn: boolean; hints: RecognizeHints };
}

/** Whether a load built from a cached optimized graph (`hit`), saved one (`saved`), or neither. */
export interface GraphCacheOutcome {
  status: GraphCacheStatus;
  reason: string | null;
}

/** Prefill work for one sequence: a chunk of its uncached tokens. */
export interface PrefillWork {
  seqId: string;
  tokenIds: number[];
  /** Cached leading pages on the first chunk; null on later chunks (the executor kept the K/V). */
  cachedPages: PageData[] | null;
  isLastChunk: boolean;
  /** First page index to capture as it completes, or null when paging is off. */
  captureFromPage: number | null;
  /** How this sequence samples, on the first chunk (the worker keeps it from then on). */
  sampler: SamplerStart | null;
  /**
   * A finished sequence whose past the worker may still hold, assembled, and whose pages begin
   * with exactly `cachedPages` (the main thread checked): used instead of copying the pages.
   */
  retainedFrom: string | null;
}

/** Finished sequences' assembled pasts a slot's worker keeps for their next turn (LRU). */
export const MAX_RETAINED_PASTS = 2;

/** Where a first chunk's past came from: none, a retained assembled past, or copied pages. */
export type PastSource = 'none' | 'retained' | 'pages';

/**
 * One decode step over these seated sequences, in batch order. Each row's input is the token
 * the worker itself sampled last (after its prefill or its previous step). With `mayContinue`
 * the worker runs the next step of the same rows as soon as it has replied (one step ahead),
 * so the thread hop and the main thread's work are off every inter-token gap.
 */
export interface DecodeWork {
  rows: Array<{ seqId: string }>;
  mayContinue: boolean;
  /**
   * Steps to run back to back before replying (a burst; absent: 1), so the main thread wakes
   * once per burst rather than once per token. A burst ends early after a step that sampled one
   * of `endTokenIds` or broken scores: that answer is over and the main thread should know.
   */
  numSteps?: number;
  endTokenIds?: number[];
}

/** One step of the slot: at most one prefill chunk and one decode step, then K/V to forget. */
export interface StepJob {
  type: 'step';
  pageSize: number;
  prefill: PrefillWork | null;
  decode: DecodeWork | null;
  /** Sequences whose K/V the executor must forget (finished, cancelled, preempted). */
  drop: string[];
  /** A remembered conversation to hold as a retained past (RememberedSeat); absent: none. */
  seat?: RememberedSeat;
  /**
   * The size the slot's one K/V buffer takes from this step on (bound path): the worker lays
   * its buffer out to it after the drops, its seated rows kept. Absent: the buffer stays as it is.
   */
  kvGrant?: KvGrant;
}

/**
 * Pages read back from disk after a restart, to be assembled into a retained past under
 * `seqId` before the job's prefill (only in a job that runs nothing else): the conversation's
 * next turn then starts from it as from a past retained in this process.
 */
export interface RememberedSeat {
  seqId: string;
  pages: PageData[];
}

/** Releases the session and the host buffer; the worker replies `unloaded` and may exit. */
export interface UnloadJob {
  type: 'unload';
}

/** Every job the main thread posts to a slot worker. */
export type WorkerJob = LoadJob | StepJob | UnloadJob;

/** A completed page of K/V, written by the executor into shared memory. */
export interface CapturedPage {
  seqId: string;
  pageIndex: number;
  data: PageData;
}

/** How the weights sit in host memory (from host-memory). */
export interface HostBufferInfo {
  hostBytes: number;
  isPinned: boolean;
  pinnedReason: string | null;
  lockedBytes: number;
  residentPct: number | null;
}

/** Nodes ONNX Runtime runs per decode step (its optimized graph's), or null with why it is not known. */
export interface StepNodes {
  count: number | null;
  reason: string | null;
}

/** Which way a slot runs: the bound path (K/V written in place), or onnxruntime-node and why. */
export type SlotRunPath = { path: 'bound' } | { path: 'ort-node'; reason: string };

/** The session is built: where the weights sit, which provider runs and the load's parts (ms). */
export interface LoadedReply {
  type: 'loaded';
  host: HostBufferInfo;
  provider: ProviderOutcome;
  graphCache: GraphCacheOutcome;
  readMs: number;
  buildMs: number;
  warmupMs: number;
  stepNodes: StepNodes;
  /** What load-time fusion decided (the slot card's "graph"), and its time (ms) before the build. */
  fusion: FusionOutcome;
  fuseMs: number;
  /** How the graph that runs is fed: the fused graph's after fusion (float32 K/V, start-aligned rows). */
  io: DecoderIo;
  /** Which way the slot runs its K/V: the bound path, or onnxruntime-node and why. */
  runPath: SlotRunPath;
}

/** What one prefill chunk did; stamps (`*At`) are the worker's clock in ms, comparable to the main thread's. */
export interface PrefillOutcome {
  seqId: string;
  /** First chunk only: how the cached past was put together (null on later chunks). */
  pastSource: PastSource | null;
  /** The executor took the job: after a step run ahead finished (the slot's lock), before page copies and drops. */
  pickedUpAt: number;
  /** This chunk's own work began (its cached past is assembled next). */
  startedAt: number;
  contextReadyAt: number;
  logitsAt: number;
  /** The first token, sampled on the last chunk, else null. */
  sampled: SampledToken | null;
  pages: CapturedPage[];
}

/** A token the worker sampled, and the sequence's RNG state after the draw. */
export interface SampledToken {
  tokenId: number;
  rngState: number;
  /** Set when the forward's scores were NaN or infinite: no token was picked, the answer ends in an error. */
  brokenScores?: BrokenScores;
}

/** What one decode step did: its stamps (ms) and each row's sampled token. */
export interface DecodeOutcome {
  startedAt: number;
  logitsAt: number;
  /** Rows of the step that served this job; a row joining the batch may be left for the next one. */
  rows: Array<{ seqId: string } & SampledToken>;
  pages: CapturedPage[];
}

/** The answer to a StepJob: the prefill chunk's and the decode step's outcomes (null for the part not asked). */
export interface SteppedReply {
  type: 'stepped';
  prefill: PrefillOutcome | null;
  decode: DecodeOutcome | null;
  /** The burst's steps after `decode`, in order (DecodeWork.numSteps); absent when it ran one. */
  laterDecodes?: DecodeOutcome[];
  /**
   * Bytes of the slot's one K/V buffer after the step (the bound path's `SlotKv`, every row's
   * whole capacity); absent where the K/V lives in per-step arrays counted by their pages.
   */
  kvBytes?: number;
}

/** The session and the host buffer are released. */
export interface UnloadedReply {
  type: 'unloaded';
}

/** The job failed; `message` says why (the slot, not the process, pays for it). */
export interface FailedReply {
  type: 'failed';
  message: string;
}

/** Every reply a slot worker posts. */
export type WorkerReply = LoadedReply | SteppedReply | UnloadedReply | FailedReply;

/**
 * Posted once by a worker when its entry has loaded (ONNX Runtime's binding included), under
 * NOTICE_JOB_ID, which no job ever has: a spare worker is ready to take a load.
 */
export interface ReadyNotice {
  type: 'ready';
}

/** The job id of notices either way (ReadyNotice, BurstCutNotice, WakeNotice): jobs are numbered from 1. */
export const NOTICE_JOB_ID = 0;

/**
 * Posted by the main thread beside the job in flight, under NOTICE_JOB_ID and never answered:
 * someone now waits for the slot (a new request, a cancelled row), so a decode burst ends after
 * the step it is running. A cut that arrives after its job has replied is void.
 */
export interface BurstCutNotice {
  type: 'cutBurst';
}

/**
 * Posted by the main thread to an idle worker, under NOTICE_JOB_ID and never answered, when a
 * request arrives for its slot: the worker polls for the job (wake-poll.ts) instead of sleeping,
 * so waking its thread overlaps the request's routing instead of following the job's post.
 */
export interface WakeNotice {
  type: 'wake';
}

/** What the main thread posts beside (or before) a job; never answered. */
export type MainNotice = BurstCutNotice | WakeNotice;

/** Everything a slot worker posts: replies to jobs, and its ready notice. */
export type WorkerMessage = WorkerReply | ReadyNotice;

/** A job with its id, as posted to the worker; replies carry the same id. */
export interface Envelope<T> {
  jobId: number;
  body: T;
}
