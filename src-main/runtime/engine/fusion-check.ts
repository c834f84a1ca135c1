import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { FUSED_INPUTS } from '../model/fused-graph';
import { FUSION_CHECK_LIMITS } from '../model/fuse-at-load';
import type { FusionAgreement } from '../model/fuse-at-load';
import type { DecoderIo } from '../model/decoder-io';
import { halfArrayToFloat32 } from '../model/float16';
import type { KvGeometry } from '../model/kv-geometry';
import type { WeightBytes } from './model-runner';
import { nodesInLastProfiledRun } from './profiled-nodes';
import type { ExecutionProvider } from './providers';

/**
 * The check's tokens: a fixed prompt (ids taken modulo the vocabulary) prefilled at once, then
 * greedy decode steps fed the original graph's own choices to both graphs (teacher forcing), so
 * every position compares the two graphs on the same input.
 */
export const FUSION_CHECK_TOKENS = {
  promptIds: [1, 17, 257, 3, 1000, 42, 7, 512],
  numDecodeSteps: 4,
} as const;

/** What the check is given: both graphs, how to feed the original, and the session's threads. */
export interface FusionCheckSpec {
  original: WeightBytes;
  io: DecoderIo;
  fused: Uint8Array;
  /** The original graph's K/V geometry (the fused graph's K/V are float32 with the same heads). */
  geometry: KvGeometry;
  vocabSize: number;
  /** Weights and K/V are float32: every greedy id must match. */
  isExact: boolean;
  numThreads: number;
  provider: ExecutionProvider;
}

/** Nodes ONNX Runtime ran for one decode step of each graph (profiled in the check's last step). */
export interface CheckedStepNodes {
  original: number;
  fused: number;
}

/**
 * The check's verdict: whether the fused graph may be used, its agreement, why not when it may
 * not, and the nodes per decode step of both graphs (null when they could not be counted).
 */
export interface FusionCheck {
  isAccepted: boolean;
  agreement: FusionAgreement;
  reason: string | null;
  stepNodes: CheckedStepNodes | null;
}

type Feeds = Record<string, ort.Tensor>;
type KvArrays = Array<Float32Array | Uint16Array>;

/** One graph under check: its session and how to feed it a step over `past`. */
interface Side {
  session: ort.InferenceSession;
  feeds(ids: number[], pastLength: number, past: KvArrays): Feeds;
  kvType: 'float32' | 'float16';
  logitsType: 'float32' | 'float16';
}

/**
 * Runs the original and the fused graph on FUSION_CHECK_TOKENS with ONNX Runtime and compares
 * their greedy ids at every position (prefill and decode). Accepts an exact graph only when all
 * match, any other when at least FUSION_CHECK_LIMITS.minAgreement do; a fused graph ONNX Runtime
 * cannot build or run is refused with its error. Blocks the thread (run it in the slot's worker).
 */
export async function checkFusedGraph(spec: FusionCheckSpec): Promise<FusionCheck> {
  const profileDir = mkdtempSync(path.join(os.tmpdir(), 'ff-fusion-check-'));
  const options = (name: string): ort.InferenceSession.SessionOptions => ({
    executionProviders: [spec.provider],
    intraOpNumThreads: spec.numThreads,
    interOpNumThreads: 1,
    logSeverityLevel: 3,
    // Profiled so the check can say how many nodes a decode step runs before and after fusion.
    enableProfiling: true,
    profileFilePrefix: path.join(profileDir, name),
  });
  // The original graph not building is the load's own failure: thrown, not the fused graph's.
  const original = await ort.InferenceSession.create(spec.original.bytes, {
    ...options('original'),
    externalData: spec.original.externalData,
  }).catch((error: Error) => {
    rmSync(profileDir, { recursive: true, force: true });
    throw error;
  });
  let fused: ort.InferenceSession | null = null;
  try {
    fused = await ort.InferenceSession.create(spec.fused, options('fused'));
    const agreement = await compare(originalSide(original, spec), fusedSide(fused, spec), spec);
    return { ...verdict(agreement), stepNodes: profiledStepNodes(profileDir, original, fused) };
  } catch (error) {
    const agreement = { numCompared: 0, numEqual: 0, maxLogitDiff: null, isExact: spec.isExact };
    return {
      isAccepted: false,
      agreement,
      reason: `the fused graph did not run: ${(error as Error).message}`,
      stepNodes: null,
    };
  } finally {
    await original.release();
    await fused?.release();
    rmSync(profileDir, { recursive: true, force: true });
  }
}

/** Each session's nodes in its last run (a decode step); null, said in the log, when unreadable. */
function profiledStepNodes(
  dir: string,
  original: ort.InferenceSession,
  fused: ort.InferenceSession,
): CheckedStepNodes | null {
  original.endProfiling();
  fused.endProfiling();
  try {
    return { original: nodesInLastProfiledRun(dir, 'original'), fused: nodesInLastProfiledRun(dir, 'fused') };
  } catch (error) {
    console.warn(`fusion check: nodes per step not counted: ${(error as Error).message}`);
    return null;
  }
}

function verdict(agreement: FusionAgreement): Omit<FusionCheck, 'stepNodes'> {
  const share = agreement.numEqual / agreement.numCompared;
  if (agreement.maxLogitDiff === null)
    return { isAccepted: false, agreement, reason: 'the fused graph gave logits that are not finite' };
  const diff = agreement.maxLogitDiff.toPrecision(2);
  if (agreement.isExact && share < 1)
    return {
      isAccepted: false,
      agreement,
      reason: `its greedy ids differ at ${agreement.numCompared - agreement.numEqual} of ${agreement.numCompared} positions with float32 weights (max logit difference ${diff})`,
    };
  if (share < FUSION_CHECK_LIMITS.minAgreement)
    return {
      isAccepted: false,
      agreement,
      reason: `its greedy ids agree at ${agreement.numEqual} of ${agreement.numCompared} positions, under the ${FUSION_CHECK_LIMITS.minAgreement * 100}% needed (max logit difference ${diff})`,
    };
  return { isAccepted: true, agreement, reason: null };
}

const int64 = (values: number[], dims: number[]) =>
  new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

function pastFeeds(
  geometry: KvGeometry,
  kvType: 'float32' | 'float16',
  pastLength: number,
  past: KvArrays,
): Feeds {
  const feeds: Feeds = {};
  const dims = [1, geometry.numKvHeads, pastLength, geometry.headDim];
  for (let layer = 0; layer < geometry.numLayers; layer++)
    (['key', 'value'] as const).forEach((kind, i) => {
      const data = past[2 * layer + i] ?? (kvType === 'float16' ? new Uint16Array(0) : new Float32Array(0));
      feeds[`past_key_values.${layer}.${kind}`] = new ort.Tensor(kvType, data, dims);
    });
  return feeds;
}

/** The original graph fed as the engine feeds it (mask of ones, positions, keep-all, cache branch). */
function originalSide(session: ort.InferenceSession, spec: FusionCheckSpec): Side {
  const { io } = spec;
  return {
    session,
    kvType: io.kvDtype,
    logitsType: io.logitsDtype,
    feeds: (ids, pastLength, past) => {
      const total = pastLength + ids.length;
      const feeds: Feeds = {
        input_ids: int64(ids, [1, ids.length]),
        attention_mask: int64(new Array<number>(total).fill(1), [1, total]),
        ...pastFeeds(spec.geometry, io.kvDtype, pastLength, past),
      };
      if (io.hasPositionIds) feeds['position_ids'] = int64(range(pastLength, ids.length), [1, ids.length]);
      if (io.logitsToKeepInput) feeds[io.logitsToKeepInput] = int64([0], []);
      if (io.hasUseCacheBranch)
        feeds['use_cache_branch'] = new ort.Tensor('bool', Uint8Array.of(pastLength > 0 ? 1 : 0), [1]);
      return feeds;
    },
  };
}

/** The fused graph fed GroupQueryAttention's lengths (one row, start-aligned) and keep-all. */
function fusedSide(session: ort.InferenceSession, spec: FusionCheckSpec): Side {
  return {
    session,
    kvType: 'float32',
    logitsType: 'float32',
    feeds: (ids, pastLength, past) => {
      const total = pastLength + ids.length;
      return {
        input_ids: int64(ids, [1, ids.length]),
        [FUSED_INPUTS.seqlensK]: new ort.Tensor('int32', Int32Array.of(total - 1), [1]),
        [FUSED_INPUTS.totalSequenceLength]: new ort.Tensor('int32', Int32Array.of(total), []),
        [FUSED_INPUTS.logitsToKeep]: int64([0], []),
        ...pastFeeds(spec.geometry, 'float32', pastLength, past),
      };
    },
  };
}

/** One forward: each position's logits as float32, and the presents to feed back. */
async function step(side: Side, ids: number[], pastLength: number, past: KvArrays, numLayers: number) {
  const presents = range(0, numLayers).flatMap((layer) => [`present.${layer}.key`, `present.${layer}.value`]);
  const outputs = await side.session.run(side.feeds(ids, pastLength, past), ['logits', ...presents]);
  const logits = outputs['logits']!.data as Float32Array | Uint16Array;
  return {
    width: outputs['logits']!.dims.at(-1)!,
    logits:
      side.logitsType === 'float16' ? halfArrayToFloat32(logits as Uint16Array) : (logits as Float32Array),
    past: presents.map((name) => outputs[name]!.data as Float32Array | Uint16Array),
  };
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

/** Teacher-forced prefill then decode; counts equal greedy ids and the largest logit difference. */
async function compare(original: Side, fused: Side, spec: FusionCheckSpec): Promise<FusionAgreement> {
  const agreement: FusionAgreement = { numCompared: 0, numEqual: 0, maxLogitDiff: 0, isExact: spec.isExact };
  const { numLayers } = spec.geometry;
  let ids = FUSION_CHECK_TOKENS.promptIds.map((id) => id % spec.vocabSize);
  let pastLength = 0;
  let pasts: [KvArrays, KvArrays] = [[], []];
  let maxDiff = 0;
  for (let s = 0; s <= FUSION_CHECK_TOKENS.numDecodeSteps; s++) {
    const a = await step(original, ids, pastLength, pasts[0], numLayers);
    const b = await step(fused, ids, pastLength, pasts[1], numLayers);
    let lastChoice = 0;
    for (let position = 0; position < ids.length; position++) {
      const at = ({ logits, width }: { logits: Float32Array; width: number }) =>
        logits.subarray(position * width, (position + 1) * width);
      const [x, y] = [at(a), at(b)];
      lastChoice = argmax(x);
      agreement.numCompared += 1;
      if (lastChoice === argmax(y)) agreement.numEqual += 1;
      maxDiff = Math.max(maxDiff, maxAbsDiff(x, y));
    }
    pastLength += ids.length;
    pasts = [a.past, b.past];
    ids = [lastChoice];
  }
  return { ...agreement, maxLogitDiff: Number.isFinite(maxDiff) ? maxDiff : null };
}

/** Largest |x − y| (NaN when either holds a value that is not finite). */
function maxAbsDiff(x: Float32Array, y: Float32Array): number {
  let max = 0;
  for (let i = 0; i < x.length; i++) {
    const diff = Math.abs(x[i]! - y[i]!);
    if (!Number.isFinite(diff)) return Number.NaN;
    if (diff > max) max = diff;
  }
  return max;
}
