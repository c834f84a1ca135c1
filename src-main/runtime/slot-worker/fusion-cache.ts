import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FUSE_AT_LOAD_FORM } from '../model/fuse-at-load/form';
import { FusionOutcomeSchema } from '../model/fuse-at-load/outcome';
import type { FusionOutcome } from '../model/fuse-at-load/outcome';
import { cacheSpaceProblem, commitGraph, discardGraph, machineHashOf, pendingGraphDir } from './graph-cache';
import type { ExecutionProvider } from './providers';

/** The fused graph inside a fusion cache entry (present when the outcome is `fused`). */
export const FUSED_GRAPH_FILE = 'fused.onnx';
/** The outcome of recognition and the check, written last: an entry is complete once it exists. */
export const FUSION_OUTCOME_FILE = 'outcome.json';

/**
 * The key of a model revision's load-time fusion, beside the optimized graphs (graph-cache.ts):
 * the check ran on this ONNX Runtime, CPU, platform and provider, so the key holds them, and the
 * fusion form (FUSE_AT_LOAD_FORM), so a changed recognizer or writer never reads an older entry.
 */
export function fusionCacheKey(modelRevision: string, provider: ExecutionProvider): string {
  return `${modelRevision.slice(0, 32)}-${machineHashOf(provider)}-fused${FUSE_AT_LOAD_FORM}`;
}

/**
 * The revision that keys the fused graph's own optimized graph (graph-cache.ts): derived from the
 * original's and the fusion form, so it never reads the original's entry nor an older form's.
 */
export function fusedGraphRevisionOf(modelRevision: string): string {
  return createHash('sha256').update(`${modelRevision}|fused at load|${FUSE_AT_LOAD_FORM}`).digest('hex');
}

/** A fusion cache entry: where it lives and, when complete and readable, what it recorded. */
export interface CachedFusion {
  entry: string;
  /** The recorded outcome (isFromCache set), or null when there is no usable entry. */
  outcome: FusionOutcome | null;
  /** The fused graph's path (exists when `outcome` is `fused`). */
  fusedFile: string;
}

function isCompleteFusion(entry: string): boolean {
  return existsSync(path.join(entry, FUSION_OUTCOME_FILE));
}

/**
 * The fusion recorded for a model revision in `dir` on this machine and provider. An entry that
 * does not read back (a corrupt outcome, a fused graph missing) is removed, so the next load
 * recognizes and checks again; never throws.
 */
export function readCachedFusion(
  dir: string,
  modelRevision: string,
  provider: ExecutionProvider,
): CachedFusion {
  const entry = path.join(dir, fusionCacheKey(modelRevision, provider));
  const fusedFile = path.join(entry, FUSED_GRAPH_FILE);
  if (!isCompleteFusion(entry)) return { entry, outcome: null, fusedFile };
  try {
    const parsed = FusionOutcomeSchema.parse(
      JSON.parse(readFileSync(path.join(entry, FUSION_OUTCOME_FILE), 'utf8')),
    );
    if (parsed.status === 'fused' && !existsSync(fusedFile))
      throw new Error(`${FUSED_GRAPH_FILE} is missing`);
    const outcome = 'isFromCache' in parsed ? { ...parsed, isFromCache: true } : parsed;
    return { entry, outcome, fusedFile };
  } catch (error) {
    discardGraph(entry);
    console.warn(
      `fused graph cache: ${entry} did not read back and was removed: ${(error as Error).message}`,
    );
    return { entry, outcome: null, fusedFile };
  }
}

/**
 * Removes a model revision's fusion entry (its fused graph did not build or read back here), so
 * the next load recognizes, rewrites and checks again instead of trusting it; never throws.
 */
export function discardFusion(dir: string, modelRevision: string, provider: ExecutionProvider): void {
  discardGraph(path.join(dir, fusionCacheKey(modelRevision, provider)));
}

/**
 * Records an outcome (and the fused graph when there is one) in its own `.partial` folder,
 * renamed into place whole. Best effort: returns why nothing was saved (no disk space, a write that
 * failed), or null once saved (or when another save committed the same entry first).
 */
export function saveFusion(entry: string, outcome: FusionOutcome, fused: Uint8Array | null): string | null {
  let pending: string | null = null;
  try {
    const spaceProblem = cacheSpaceProblem(path.dirname(entry), fused?.byteLength ?? 0);
    if (spaceProblem !== null) return `not saved: ${spaceProblem}`;
    pending = pendingGraphDir(entry);
    if (fused) writeFileSync(path.join(pending, FUSED_GRAPH_FILE), fused);
    writeFileSync(path.join(pending, FUSION_OUTCOME_FILE), `${JSON.stringify(outcome)}\n`);
    commitGraph(pending, entry, isCompleteFusion);
    return null;
  } catch (error) {
    if (pending) discardGraph(pending);
    return `not saved: ${(error as Error).message}`;
  }
}
