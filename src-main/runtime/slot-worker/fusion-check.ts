import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { FUSION_CHECK_LIMITS } from '../model/fuse-at-load/outcome';
import { argmax } from '../sampling/sampler';
import type { FusionAgreement } from '../model/fuse-at-load/outcome';
import type { DecoderIo } from '../model/decoder-io';
import type { KvGeometry } from '../model/kv-geometry';
import { checkedStep, fusedSide, originalSide } from './fusion-check-feeds';
import type { CheckedSide, KvArrays } from './fusion-check-feeds';
import type { WeightBytes } from './model-runner';
import { nodesInLastProfiledRun } from './profiled-nodes';
import type { ExecutionProvider } from './providers';
import { sessionOptionsOf } from './session-options';

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
  /** The setting `canSpinThreads`, as the slot's session gets it. */
  canSpinThreads: boolean;
  provider: ExecutionProvider;
}

/** Nodes ONNX Runtime ran for one decode step of each graph (profiled in the check's last step). */
export interface CheckedStepNodes {
  original: number;
  fused: number;
}

/**
 * The check's verdict: whether the fused graph may be used, its agreement, why not when it may
 * not, the nodes per decode step of both graphs (null when they could not be counted), and the
 * most ONNX Runtime sessions it held at once (1: the original's is released before the fused
 * graph's is built, so the check's peak is one model's session, not two).
 */
export interface FusionCheck {
  isAccepted: boolean;
  agreement: FusionAgreement;
  reason: string | null;
  stepNodes: CheckedStepNodes | null;
  numPeakSessions: number;
}

/** One step of the original graph on the check's tokens: what it was fed and the logits it gave. */
interface ReferenceStep {
  ids: number[];
  pastLength: number;
  width: number;
  logits: Float32Array;
}

/** The check's sessions: built and released through it, so it knows how many were alive at once. */
interface SessionLedger {
  open(bytes: Uint8Array, options: ort.InferenceSession.SessionOptions): Promise<ort.InferenceSession>;
  close(session: ort.InferenceSession): Promise<void>;
  numPeak(): number;
}

function sessionLedger(): SessionLedger {
  let numLive = 0;
  let numPeak = 0;
  return {
    open: async (bytes, options) => {
      const session = await ort.InferenceSession.create(bytes, options);
      numLive += 1;
      numPeak = Math.max(numPeak, numLive);
      return session;
    },
    close: async (session) => {
      await session.release();
      numLive -= 1;
    },
    numPeak: () => numPeak,
  };
}

/**
 * Runs the original graph on FUSION_CHECK_TOKENS with ONNX Runtime and keeps its logits, releases
 * it, then runs the fused graph on the same ids and compares their greedy ids at every position
 * (prefill and decode). Accepts an exact graph only when all match, any other when at least
 * FUSION_CHECK_LIMITS.minAgreement do; a fused graph ONNX Runtime cannot build or run is refused
 * with its error. One session at a time. Blocks the thread (run it in the slot's worker).
 */
export async function checkFusedGraph(spec: FusionCheckSpec): Promise<FusionCheck> {
  const profileDir = profileDirOrNull();
  // The slot's own session options, profiled (when a folder could be made) so the check can say
  // how many nodes a decode step runs before and after fusion.
  const options = (name: string): ort.InferenceSession.SessionOptions =>
    sessionOptionsOf({
      numThreads: spec.numThreads,
      canSpinThreads: spec.canSpinThreads,
      provider: spec.provider,
      ...(profileDir ? { profileFilePrefix: path.join(profileDir, name) } : {}),
    });
  const sessions = sessionLedger();
  const refused = (reason: string, agreement = noAgreement(spec)): FusionCheck => ({
    isAccepted: false,
    agreement,
    reason,
    stepNodes: null,
    numPeakSessions: sessions.numPeak(),
  });
  try {
    // The original graph not building is the load's own failure: thrown, not the fused graph's.
    const original = await sessions.open(spec.original.bytes, {
      ...options('original'),
      externalData: spec.original.externalData,
    });
    let reference: ReferenceStep[];
    try {
      reference = await referenceRun(originalSide(original, spec.io, spec.geometry), spec);
      if (profileDir) original.endProfiling();
    } catch (error) {
      return refused(`the original graph did not run the check's tokens: ${(error as Error).message}`);
    } finally {
      await sessions.close(original);
    }
    let fused: ort.InferenceSession | null = null;
    try {
      fused = await sessions.open(spec.fused, options('fused'));
      const agreement = await compare(reference, fusedSide(fused, spec.geometry), spec);
      if (profileDir) fused.endProfiling();
      return {
        ...verdict(agreement),
        stepNodes: profileDir ? profiledStepNodes(profileDir) : null,
        numPeakSessions: sessions.numPeak(),
      };
    } catch (error) {
      return refused(`the fused graph did not run: ${(error as Error).message}`);
    } finally {
      if (fused) await sessions.close(fused);
    }
  } finally {
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  }
}

/** A folder for the check's profiles; null (said in the log) when the temporary folder cannot hold one. */
function profileDirOrNull(): string | null {
  try {
    return mkdtempSync(path.join(os.tmpdir(), 'ff-fusion-check-'));
  } catch (error) {
    console.warn(`fusion check: nodes per step not counted, no profile folder: ${(error as Error).message}`);
    return null;
  }
}

const noAgreement = (spec: FusionCheckSpec): FusionAgreement => ({
  numCompared: 0,
  numEqual: 0,
  maxLogitDiff: null,
  isExact: spec.isExact,
});

/** Each session's nodes in its last run (a decode step); null, said in the log, when unreadable. */
function profiledStepNodes(dir: string): CheckedStepNodes | null {
  try {
    return { original: nodesInLastProfiledRun(dir, 'original'), fused: nodesInLastProfiledRun(dir, 'fused') };
  } catch (error) {
    console.warn(`fusion check: nodes per step not counted: ${(error as Error).message}`);
    return null;
  }
}

function verdict(agreement: FusionAgreement): Omit<FusionCheck, 'stepNodes' | 'numPeakSessions'> {
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

/** Row `position` of a step's logits. */
const rowOf = (step: { logits: Float32Array; width: number }, position: number) =>
  step.logits.subarray(position * step.width, (position + 1) * step.width);

/** The original's prefill of the prompt then its greedy decode steps, each step's input and logits kept. */
async function referenceRun(original: CheckedSide, spec: FusionCheckSpec): Promise<ReferenceStep[]> {
  const steps: ReferenceStep[] = [];
  let ids = FUSION_CHECK_TOKENS.promptIds.map((id) => id % spec.vocabSize);
  let pastLength = 0;
  let past: KvArrays = [];
  for (let s = 0; s <= FUSION_CHECK_TOKENS.numDecodeSteps; s++) {
    const step = await checkedStep(original, ids, pastLength, past, spec.geometry.numLayers);
    steps.push({ ids, pastLength, width: step.width, logits: step.logits.slice() });
    pastLength += ids.length;
    past = step.past;
    ids = [argmax(rowOf(step, ids.length - 1))];
  }
  return steps;
}

/** The fused graph fed the original's ids step by step; counts equal greedy ids and the largest logit difference. */
async function compare(
  reference: ReferenceStep[],
  fused: CheckedSide,
  spec: FusionCheckSpec,
): Promise<FusionAgreement> {
  const agreement: FusionAgreement = { numCompared: 0, numEqual: 0, maxLogitDiff: 0, isExact: spec.isExact };
  let past: KvArrays = [];
  let maxDiff = 0;
  for (const expected of reference) {
    const step = await checkedStep(fused, expected.ids, expected.pastLength, past, spec.geometry.numLayers);
    for (let position = 0; position < expected.ids.length; position++) {
      const [x, y] = [rowOf(expected, position), rowOf(step, position)];
      agreement.numCompared += 1;
      if (argmax(x) === argmax(y)) agreement.numEqual += 1;
      maxDiff = Math.max(maxDiff, maxAbsDiff(x, y));
    }
    past = step.past;
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
