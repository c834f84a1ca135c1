import type { KvGeometry } from './kv-batch';

/**
 * Messages between the main thread (which schedules) and a slot's worker (which owns the
 * ONNX Runtime session). One job is in flight per worker at a time: that is the slot's lock.
 * Instants (`*At`) are stamped in the worker on the process-aligned clock.
 */
export interface LoadJob {
  type: 'load';
  onnxPath: string;
  geometry: KvGeometry;
  numThreads: number;
  isLocking: boolean;
}

/** Prefill work for one sequence: a chunk of its uncached tokens. */
export interface PrefillWork {
  seqId: string;
  tokenIds: number[];
  /** Cached leading pages on the first chunk; null on later chunks (the executor kept the K/V). */
  cachedPages: SharedArrayBuffer[] | null;
  isLastChunk: boolean;
  /** First page index to capture as it completes, or null when paging is off. */
  captureFromPage: number | null;
}

/** One decode step: every seated sequence of the slot, in batch order, with its newest token. */
export interface DecodeWork {
  rows: Array<{ seqId: string; tokenId: number }>;
}

export interface StepJob {
  type: 'step';
  pageSize: number;
  prefill: PrefillWork | null;
  decode: DecodeWork | null;
  /** Sequences whose K/V the executor must forget (finished, cancelled, preempted). */
  drop: string[];
}

export interface UnloadJob {
  type: 'unload';
}

export type WorkerJob = LoadJob | StepJob | UnloadJob;

/** A completed page of K/V, written by the executor into shared memory. */
export interface CapturedPage {
  seqId: string;
  pageIndex: number;
  buffer: SharedArrayBuffer;
}

/** How the weights sit in host memory (from host-memory). */
export interface HostBufferInfo {
  hostBytes: number;
  isPinned: boolean;
  pinnedReason: string | null;
  lockedBytes: number;
  residentPct: number | null;
}

export interface LoadedReply {
  type: 'loaded';
  host: HostBufferInfo;
  readMs: number;
  buildMs: number;
  warmupMs: number;
}

export interface PrefillOutcome {
  seqId: string;
  startedAt: number;
  contextReadyAt: number;
  logitsAt: number;
  /** Last-position logits on the last chunk, else null. */
  logits: Float32Array | null;
  pages: CapturedPage[];
}

export interface DecodeOutcome {
  startedAt: number;
  logitsAt: number;
  rows: Array<{ seqId: string; logits: Float32Array }>;
  pages: CapturedPage[];
}

export interface SteppedReply {
  type: 'stepped';
  prefill: PrefillOutcome | null;
  decode: DecodeOutcome | null;
}

export interface UnloadedReply {
  type: 'unloaded';
}

export interface FailedReply {
  type: 'failed';
  message: string;
}

export type WorkerReply = LoadedReply | SteppedReply | UnloadedReply | FailedReply;

/** A job with its id, as posted to the worker; replies carry the same id. */
export interface Envelope<T> {
  jobId: number;
  body: T;
}
