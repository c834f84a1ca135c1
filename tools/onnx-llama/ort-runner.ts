// Minimal onnxruntime-node driver for the graph contract: feeds from plain
// number arrays, K/V carried from present.* to past_key_values.*, greedy
// decode. Used by the bench and reference-check scripts and by the tests.

import * as ort from 'onnxruntime-node';
import { llamaDims, type LlamaConfig } from './config';

/** The K/V layout a session expects: per layer one key and one value [B, NKV, T, D]. */
export interface KvLayout {
  numLayers: number;
  numKvHeads: number;
  headDim: number;
}

/** past_key_values.* tensors by input name. */
export type PastTensors = Record<string, ort.Tensor>;

/** One forward's inputs; rows are batch entries (all rows the same length). */
export interface StepInputs {
  inputIds: number[][];
  attentionMask: number[][];
  positionIds: number[][];
  past: PastTensors;
}

/** One forward's outputs: logits [B, S, V] flat, and present.* renamed to the next step's past. */
export interface StepOutputs {
  logits: Float32Array;
  logitsDims: readonly number[];
  nextPast: PastTensors;
}

/** K/V layout of a config. */
export function kvLayoutOf(config: LlamaConfig): KvLayout {
  const { numLayers, numKvHeads, headDim } = llamaDims(config);
  return { numLayers, numKvHeads, headDim };
}

/** Empty past (length-0 third dim) for a batch. */
export function emptyPast(layout: KvLayout, batchSize: number): PastTensors {
  const past: PastTensors = {};
  for (let layer = 0; layer < layout.numLayers; layer++) {
    for (const kind of ['key', 'value']) {
      past[`past_key_values.${layer}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [
        batchSize,
        layout.numKvHeads,
        0,
        layout.headDim,
      ]);
    }
  }
  return past;
}

function int64Tensor(rows: number[][]): ort.Tensor {
  const width = rows[0]?.length ?? 0;
  if (rows.some((row) => row.length !== width)) throw new Error('all batch rows must have the same length');
  return new ort.Tensor('int64', BigInt64Array.from(rows.flat().map((v) => BigInt(v))), [rows.length, width]);
}

/**
 * The feeds a graph takes for a step: a naive graph's mask and positions; a fused graph's
 * GroupQueryAttention lengths (per row its mask's ones minus one: rows start-aligned, so a row's
 * tokens are its first mask columns) or its mask (positions come from the lengths inside); and
 * every position's logits when it takes num_logits_to_keep.
 */
function feedsOf(session: ort.InferenceSession, inputs: StepInputs): Record<string, ort.Tensor> {
  const has = (name: string) => session.inputNames.includes(name);
  const feeds: Record<string, ort.Tensor> = { input_ids: int64Tensor(inputs.inputIds), ...inputs.past };
  if (has('seqlens_k')) {
    const seqlens = inputs.attentionMask.map((row) => row.reduce((a, b) => a + b, 0) - 1);
    feeds['seqlens_k'] = new ort.Tensor('int32', Int32Array.from(seqlens), [seqlens.length]);
    const width = inputs.attentionMask[0]!.length;
    feeds['total_sequence_length'] = new ort.Tensor('int32', Int32Array.of(width), []);
  } else feeds['attention_mask'] = int64Tensor(inputs.attentionMask);
  if (has('position_ids')) feeds['position_ids'] = int64Tensor(inputs.positionIds);
  if (has('num_logits_to_keep'))
    feeds['num_logits_to_keep'] = new ort.Tensor('int64', BigInt64Array.of(0n), []);
  return feeds;
}

/** Runs one forward pass (of a naive graph or a fused one: see feedsOf). */
export async function runStep(session: ort.InferenceSession, inputs: StepInputs): Promise<StepOutputs> {
  const feeds = feedsOf(session, inputs);
  const outputs = await session.run(feeds);
  const nextPast: PastTensors = {};
  for (const [name, tensor] of Object.entries(outputs)) {
    if (name.startsWith('present.')) nextPast[name.replace('present.', 'past_key_values.')] = tensor;
  }
  const logits = outputs.logits!;
  return { logits: logits.data as Float32Array, logitsDims: logits.dims, nextPast };
}

/** Index of the largest value in values[offset, offset + length) (first one on ties). */
export function argmax(values: Float32Array, offset = 0, length = values.length - offset): number {
  let best = 0;
  for (let i = 1; i < length; i++) if (values[offset + i]! > values[offset + best]!) best = i;
  return best;
}

/** Greedy continuation of one prompt: prefill (in chunks of `prefillChunk`), then one token per step. */
export interface GreedyRun {
  tokens: number[];
  /** Logits of the last position at each step (prefill end first), for comparisons. */
  lastLogits: Float32Array[];
  prefillMs: number;
  decodeStepMs: number[];
}

/** Greedy decode with the K/V cache; `prefillChunk` splits the prompt into several forwards. */
export async function greedyDecode(
  session: ort.InferenceSession,
  layout: KvLayout,
  promptIds: number[],
  numNewTokens: number,
  prefillChunk = promptIds.length,
): Promise<GreedyRun> {
  let past = emptyPast(layout, 1);
  let step: StepOutputs | undefined;
  const prefillStartMs = performance.now();
  for (let start = 0; start < promptIds.length; start += prefillChunk) {
    const chunk = promptIds.slice(start, start + prefillChunk);
    const positions = chunk.map((_, i) => start + i);
    const mask = new Array<number>(start + chunk.length).fill(1);
    step = await runStep(session, {
      inputIds: [chunk],
      attentionMask: [mask],
      positionIds: [positions],
      past,
    });
    past = step.nextPast;
  }
  const run: GreedyRun = {
    tokens: [],
    lastLogits: [],
    prefillMs: performance.now() - prefillStartMs,
    decodeStepMs: [],
  };
  for (let produced = 0; produced < numNewTokens; produced++) {
    const vocabSize = step!.logitsDims[2]!;
    const last = step!.logits.slice(step!.logits.length - vocabSize);
    run.lastLogits.push(last);
    run.tokens.push(argmax(last));
    if (produced === numNewTokens - 1) break;
    const totalLength = promptIds.length + run.tokens.length;
    const stepStartMs = performance.now();
    step = await runStep(session, {
      inputIds: [[run.tokens.at(-1)!]],
      attentionMask: [new Array<number>(totalLength).fill(1)],
      positionIds: [[totalLength - 1]],
      past,
    });
    run.decodeStepMs.push(performance.now() - stepStartMs);
    past = step.nextPast;
  }
  return run;
}
