import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { ExecutionProvider } from './providers';

/**
 * ONNX Runtime's optimized graph of one model revision, saved once and built from afterwards:
 * graph optimization is most of a cold session build. ORT warns the saved graph is specific to
 * the hardware and its own version, so the key holds both, and the provider.
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

/** Where a model revision's optimized graph lives in `dir`, and whether it is there yet. */
export function cachedGraphPath(dir: string, modelRevision: string, provider: ExecutionProvider) {
  // `.ort`: ORT's own format (see load-slot.ts), which older caches' `.onnx` files are not.
  const file = path.join(dir, `${graphCacheKey(modelRevision, provider)}.ort`);
  return { file, isPresent: existsSync(file) };
}

/** A temporary name for ORT to write the optimized graph to, renamed into place once complete. */
export function pendingGraphPath(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  return `${file}.${process.pid}.partial`;
}

/** Moves a completely written graph into place (rename: readers never see half a file). */
export function commitGraph(pending: string, file: string): void {
  renameSync(pending, file);
}

/** Removes a cached graph that failed to build, so the next load makes it again. */
export function discardGraph(file: string): void {
  rmSync(file, { force: true });
}
