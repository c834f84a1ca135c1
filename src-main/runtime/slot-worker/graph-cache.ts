import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type { ExecutionProvider } from './providers';
import { GRAPH_REWRITE_FORM } from '../model/onnx-graph/rewrite-for-slot';

/** The graph's file inside a cache entry; its initializers are in GRAPH_DATA_FILE beside it. */
export const GRAPH_FILE = 'graph.onnx';
/** The entry's external data: every initializer, and ORT's pre-packed copy of each weight it packs. */
export const GRAPH_DATA_FILE = 'graph.onnx.data';
/** Free space a save leaves beside the entry, so a cache never fills the disk the history writes to. */
export const CACHE_HEADROOM_BYTES = 1024 ** 3;

/**
 * ONNX Runtime's optimized graph of one model revision, saved once and built from afterwards:
 * graph optimization and weight pre-packing are most of a cold session build. ORT warns the
 * saved graph is specific to the hardware and its own version, so the key holds both, the
 * provider, and the entry's format (with or without pre-packed weights): an entry written under
 * other rules is never read.
 */
export function graphCacheKey(
  modelRevision: string,
  provider: ExecutionProvider,
  hasPrepacked: boolean,
): string {
  // The graph's form: which load-time rewrites it carries (rewrite-for-slot.ts).
  return `${modelRevision.slice(0, 32)}-${machineHashOf(provider)}-${hasPrepacked ? 'pp' : 'np'}${GRAPH_REWRITE_FORM}`;
}

/** This machine as a cache key sees it: ONNX Runtime's version, platform, CPU and the provider, hashed. */
export function machineHashOf(provider: ExecutionProvider): string {
  const machine = [
    ort.env.versions.common,
    process.platform,
    process.arch,
    os.cpus()[0]?.model ?? 'unknown cpu',
    provider,
  ].join('|');
  return createHash('sha256').update(machine).digest('hex').slice(0, 16);
}

/** One cache entry: a folder holding the graph and its data, present only once complete. */
export interface CachedGraph {
  /** The entry's folder (renamed into place whole, so a complete folder is never half written). */
  dir: string;
  /** The graph ORT builds a session from (it maps GRAPH_DATA_FILE beside it). */
  file: string;
  isPresent: boolean;
  /** A saved graph of this key once gave unusable logits: build from the model file, save nothing. */
  isUnusable: boolean;
}

/** Where a model revision's optimized graph lives in `dir`, and whether a complete entry is there. */
export function cachedGraphPath(
  dir: string,
  modelRevision: string,
  provider: ExecutionProvider,
  hasPrepacked: boolean,
): CachedGraph {
  const entry = path.join(dir, graphCacheKey(modelRevision, provider, hasPrepacked));
  return {
    dir: entry,
    file: path.join(entry, GRAPH_FILE),
    isPresent: isCompleteEntry(entry),
    isUnusable: existsSync(unusableMarkerOf(entry)),
  };
}

/** The marker left where a saved graph built but computed garbage: that key is not saved again. */
export function unusableMarkerOf(entry: string): string {
  return `${entry}.unusable`;
}

/**
 * Removes an entry whose session gave unusable logits and marks its key, so later loads build
 * from the model file instead of saving the same broken graph again. Never throws.
 */
export function markUnusable(entry: string, why: string): void {
  discardGraph(entry);
  try {
    writeFileSync(unusableMarkerOf(entry), `${why}\n`);
  } catch (error) {
    console.warn(`graph cache: could not mark ${entry} unusable: ${(error as Error).message}`);
  }
}

/** Whether `entry` holds both the graph and its data. */
export function isCompleteEntry(entry: string): boolean {
  return existsSync(path.join(entry, GRAPH_FILE)) && existsSync(path.join(entry, GRAPH_DATA_FILE));
}

/** A fresh folder for one save, unique to this thread and attempt, renamed into place once complete. */
export function pendingGraphDir(entry: string): string {
  const pending = `${entry}.${process.pid}-${threadId}-${randomUUID().slice(0, 8)}.partial`;
  mkdirSync(pending, { recursive: true });
  return pending;
}

/**
 * Moves a completely written entry into place. Another thread or process may have saved the
 * same entry meanwhile: a complete entry (by `isComplete`) is never replaced (a reader may be
 * opening it), and this save is dropped instead.
 */
export function commitGraph(
  pending: string,
  entry: string,
  isComplete: (entry: string) => boolean = isCompleteEntry,
): void {
  if (isComplete(entry)) return discardGraph(pending);
  rmSync(entry, { recursive: true, force: true }); // an incomplete leftover
  try {
    renameSync(pending, entry);
  } catch (error) {
    discardGraph(pending);
    if (!isComplete(entry)) throw error;
  }
}

/**
 * Removes an entry (or a pending one) that failed to build or save, so the next load makes it
 * again. Never throws: a file the system will not let go (held open on Windows) is logged and
 * left for the next sweep.
 */
export function discardGraph(entry: string): void {
  try {
    rmSync(entry, { recursive: true, force: true });
  } catch (error) {
    console.warn(`graph cache: could not remove ${entry}: ${(error as Error).message}`);
  }
}

/**
 * Why an entry of up to `entryBytes` should not be saved in `dir` now, or null when it fits with
 * CACHE_HEADROOM_BYTES to spare.
 */
export function cacheSpaceProblem(
  dir: string,
  entryBytes: number,
  freeBytesOf: (dir: string) => number = freeBytes,
): string | null {
  const neededBytes = entryBytes + CACHE_HEADROOM_BYTES;
  const availableBytes = freeBytesOf(dir);
  if (availableBytes >= neededBytes) return null;
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  return `needs up to ${gib(neededBytes)} free (the entry, plus ${gib(CACHE_HEADROOM_BYTES)} left over), ${gib(availableBytes)} free`;
}

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
function freeBytes(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}
