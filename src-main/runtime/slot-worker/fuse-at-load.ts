import { fuseDecoder } from '../model/fuse-at-load/fuse';
import { asExported } from '../model/fuse-at-load/outcome';
import type { FusedDecoder } from '../model/fuse-at-load/fuse';
import type { FusionOutcome } from '../model/fuse-at-load/outcome';
import type { RecognizeHints } from '../model/fuse-at-load/recognize';
import type { DecoderIo } from '../model/decoder-io';
import type { KvGeometry } from '../model/kv-geometry';
import { checkFusedGraph } from './fusion-check';
import { readCachedFusion, saveFusion } from './fusion-cache';
import type { WeightBytes } from './model-runner';
import type { ExecutionProvider } from './providers';

/** What load-time fusion needs: the graph as loaded, how it is fed, the model's dims, where to cache. */
export interface FusionJob {
  /** The variant's file as the folder names it, for the log. */
  file: string;
  original: WeightBytes;
  io: DecoderIo;
  geometry: KvGeometry;
  hints: RecognizeHints;
  modelRevision: string;
  provider: ExecutionProvider;
  numThreads: number;
  /** The setting `canSpinThreads`, for the check's sessions. */
  canSpinThreads: boolean;
  /** The graph cache folder; null recognizes and checks on every load. */
  graphCacheDir: string | null;
}

/**
 * What the slot builds from: the fused graph (its bytes, or its cached file's path, which ONNX
 * Runtime reads itself) or null for the graph as exported; the outcome for the slot card, and why
 * the outcome was not cached when it was not.
 */
export interface FusionResult {
  outcome: FusionOutcome;
  fused: Uint8Array | string | null;
  cacheProblem: string | null;
}

/**
 * Load-time fusion of a slot's graph: the cached outcome when this model revision was fused (or
 * refused) on this machine and provider before; else recognize and write the fused form, run the
 * check against the original graph (checkFusedGraph), and cache what was decided. A graph that
 * does not fuse, or whose fused form fails the check, runs as exported with the reason.
 */
export async function fuseAtLoad(job: FusionJob): Promise<FusionResult> {
  const cached = job.graphCacheDir
    ? readCachedFusion(job.graphCacheDir, job.modelRevision, job.provider)
    : null;
  if (cached?.outcome) return resultOfCached(cached.outcome, cached.fusedFile);
  let fused: FusedDecoder;
  try {
    fused = fuseDecoder(job.original.bytes, job.original.externalData, job.hints);
  } catch (error) {
    // A recognizer failure is a bug of ours, not a property of the graph: said, never cached.
    const reason = `recognition failed: ${(error as Error).message}`;
    console.warn(`${job.file}: runs as exported, ${reason}`);
    return {
      outcome: asExported('graph', reason),
      fused: null,
      cacheProblem: 'not saved: recognition failed',
    };
  }
  if (fused.kind === 'already-fused')
    return { outcome: { status: 'already-fused', reason: fused.reason }, fused: null, cacheProblem: null };
  const decided = fused.kind === 'refused' ? refusedOutcome(fused) : await checked(job, fused);
  const cacheProblem = cached
    ? saveFusion(cached.entry, decided.outcome, decided.fused)
    : 'not saved: no graph cache folder';
  if (cacheProblem && cached) console.warn(`${job.file}: fused graph cache ${cacheProblem}`);
  return { ...decided, cacheProblem };
}

/**
 * What an earlier load decided for this model revision on this machine and provider (the fused
 * graph's path when it fused), or null when nothing usable is cached: read before the model's
 * weights, so a load the cache answers reads only the graph it runs.
 */
export function cachedFusionResult(
  graphCacheDir: string,
  modelRevision: string,
  provider: ExecutionProvider,
): FusionResult | null {
  const cached = readCachedFusion(graphCacheDir, modelRevision, provider);
  return cached.outcome ? resultOfCached(cached.outcome, cached.fusedFile) : null;
}

function resultOfCached(outcome: FusionOutcome, fusedFile: string): FusionResult {
  return { outcome, fused: outcome.status === 'fused' ? fusedFile : null, cacheProblem: null };
}

function refusedOutcome(refused: Extract<FusedDecoder, { kind: 'refused' }>): {
  outcome: FusionOutcome;
  fused: null;
} {
  return { outcome: asExported(refused.part, refused.reason), fused: null };
}

/** The check of a fused graph against the original; the fused bytes only when it passed. */
async function checked(
  job: FusionJob,
  fused: Extract<FusedDecoder, { kind: 'fused' }>,
): Promise<{ outcome: FusionOutcome; fused: Uint8Array | null }> {
  const check = await checkFusedGraph({
    original: job.original,
    io: job.io,
    fused: fused.bytes,
    geometry: job.geometry,
    vocabSize: job.hints.shape.vocabSize,
    isExact: fused.isExact,
    numThreads: job.numThreads,
    canSpinThreads: job.canSpinThreads,
    provider: job.provider,
  });
  if (check.isAccepted)
    return {
      outcome: {
        status: 'fused',
        nodesPerLayer: fused.nodesPerLayer,
        stepNodes: check.stepNodes,
        agreement: check.agreement,
        isFromCache: false,
      },
      fused: fused.bytes,
    };
  return {
    outcome: asExported('check', check.reason ?? 'the check refused it', check.agreement),
    fused: null,
  };
}
