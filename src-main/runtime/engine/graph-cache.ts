import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statfsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { ExecutionProvider } from './providers';

/** The graph's file inside a cache entry; its initializers are in GRAPH_DATA_FILE beside it. */
export const GRAPH_FILE = 'graph.onnx';
/** The entry's external data: every initializer, and ORT's pre-packed copy of each weight it packs. */
export const GRAPH_DATA_FILE = 'graph.onnx.data';

/**
 * ONNX Runtime's optimized graph of one model revision, saved once and built from afterwards:
 * graph optimization and weight pre-packing are most of a cold session build. ORT warns the
 * saved graph is specific to the hardware and its own version, so the key holds both, and the
 * provider.
 */
export function graphCacheKey(modelRevision: string, provider: ExecutionProvider): string {
  const machine = [
    ort.env.versions.common,
    process.platform,
    process.arch,
    os.cpus()[0]?.model ?? 'unknown cpu',
    provider,
  ].join('|');
  const machineHash = createHash('sha256').update(machine).digest('hex').slice(0, 16);
  return `${modelRevision.slice(0, 32)}-${machineHash}`;
}

/** One cache entry: a folder holding the graph and its data, present only once complete. */
export interface CachedGraph {
  /** The entry's folder (renamed into place whole, so a present folder is a complete one). */
  dir: string;
  /** The graph ORT builds a session from (it maps GRAPH_DATA_FILE beside it). */
  file: string;
  isPresent: boolean;
}

/** Where a model revision's optimized graph lives in `dir`, and whether it is there yet. */
export function cachedGraphPath(
  dir: string,
  modelRevision: string,
  provider: ExecutionProvider,
): CachedGraph {
  const key = graphCacheKey(modelRevision, provider);
  // Earlier versions kept a single `.ort` flatbuffer per key: it is never read again.
  rmSync(path.join(dir, `${key}.ort`), { force: true });
  const entry = path.join(dir, key);
  const file = path.join(entry, GRAPH_FILE);
  return { dir: entry, file, isPresent: existsSync(file) && existsSync(path.join(entry, GRAPH_DATA_FILE)) };
}

/** A temporary folder for ORT to write the graph and its data to, renamed into place once complete. */
export function pendingGraphDir(entry: string): string {
  const pending = `${entry}.${process.pid}.partial`;
  rmSync(pending, { recursive: true, force: true });
  mkdirSync(pending, { recursive: true });
  return pending;
}

/** Moves a completely written entry into place (a folder rename: readers never see half an entry). */
export function commitGraph(pending: string, entry: string): void {
  rmSync(entry, { recursive: true, force: true });
  renameSync(pending, entry);
}

/** Removes an entry (or a pending one) that failed to build or save, so the next load makes it again. */
export function discardGraph(entry: string): void {
  rmSync(entry, { recursive: true, force: true });
}

/** Bytes of an entry on disk (graph and data); 0 when it is gone. */
export function graphEntryBytes(entry: string): number {
  let total = 0;
  for (const name of [GRAPH_FILE, GRAPH_DATA_FILE]) {
    const file = path.join(entry, name);
    if (existsSync(file)) total += statSync(file).size;
  }
  return total;
}

/** Free space a save leaves beside the entry, so a cache never fills the disk the history writes to. */
export const CACHE_HEADROOM_BYTES = 1024 ** 3;

/**
 * Why an entry for a model of `sourceBytes` should not be saved in `dir` now, or null when it fits.
 * The estimate is an upper bound: a float graph's entry holds its weights widened to fp32 (up to
 * 2×) and their pre-packed copy (2× again); a quantized one is about its own size (2× allowed).
 */
export function cacheRoomProblem(
  dir: string,
  sourceBytes: number,
  canCachePrepacked: boolean,
  freeBytesOf: (dir: string) => number = freeBytes,
): string | null {
  const neededBytes = sourceBytes * (canCachePrepacked ? 4 : 2) + CACHE_HEADROOM_BYTES;
  const availableBytes = freeBytesOf(dir);
  if (availableBytes >= neededBytes) return null;
  const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  return `needs up to ${gb(neededBytes)} free (the graph and its packed weights, plus ${gb(CACHE_HEADROOM_BYTES)} left over), ${gb(availableBytes)} free`;
}

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
function freeBytes(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}
