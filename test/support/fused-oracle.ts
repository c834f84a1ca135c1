/**
 * A fused decoder graph run directly by ONNX Runtime (one thread), for the agreement oracles:
 * teacher-forced greedy ids over a whole sequence and free-running greedy ids.
 */
import * as ort from 'onnxruntime-node';
import type { DecoderDims } from '../../src-main/runtime/model/fused-graph/weight-set';
import { argmax, greedyDecode, runStep, emptyPast } from '../../tools/onnx-llama/ort-runner';
import type { KvLayout } from '../../tools/onnx-llama/ort-runner';

/** A session over fused graph bytes. */
export function openFused(bytes: Uint8Array): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
}

function layoutOf(dims: DecoderDims): KvLayout {
  return { numLayers: dims.numLayers, numKvHeads: dims.numKvHeads, headDim: dims.headDim };
}

/** For every position, the greedy next id after the prefix ending there (one forward over all ids). */
export async function fusedTeacherForced(
  session: ort.InferenceSession,
  dims: DecoderDims,
  ids: readonly number[],
): Promise<number[]> {
  const step = await runStep(session, {
    inputIds: [[...ids]],
    attentionMask: [ids.map(() => 1)],
    positionIds: [ids.map((_, i) => i)],
    past: emptyPast(layoutOf(dims), 1),
  });
  const vocab = step.logitsDims[2]!;
  return ids.map((_, i) => argmax(step.logits, i * vocab, vocab));
}

/** Greedy continuation of `prompt` for `numNew` ids, K/V carried step to step. */
export async function fusedGreedy(
  session: ort.InferenceSession,
  dims: DecoderDims,
  prompt: number[],
  numNew: number,
): Promise<number[]> {
  return (await greedyDecode(session, layoutOf(dims), prompt, numNew)).tokens;
}

/** Share of positions where two id lists agree. */
export function agreement(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} vs ${b.length}`);
  return a.filter((id, i) => id === b[i]).length / a.length;
}
