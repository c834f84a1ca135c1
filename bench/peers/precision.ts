import { realpathSync } from 'node:fs';
import { collectGeneration } from '../../src-main/runtime/collect';
import { slotSessionThreadsOf } from '../../src-main/runtime/runtime-parts';
import type { Runtime } from '../../src-main/runtime/runtime';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import { BoundFloor } from '../first-frame/bound-floor';
import { Floor } from '../first-frame/floor';
import { promptOfTokens } from '../first-frame/prompts';
import type { LlamaCppEngine, LlamaCppModel } from './llama-cpp';
import type { Samples } from './measure';
import { ggufWeightBytesPerToken, onnxWeightBytesPerToken } from './roofline';
import type { Precision } from './variants';
import { ensureVariant, ggufFor, PRECISIONS, variantOnnxPath } from './variants';
import type { PeersWorkload } from './workload';

/** What the precision pairs need: First Frame, llama.cpp and the model folder. */
export interface PairContext {
  runtime: Runtime;
  modelId: string;
  modelDir: string;
  bundledModelsDir: string;
  /** The folder's default variant (its name and tokenizer serve every variant). */
  model: CatalogueModel;
  llama: LlamaCppEngine;
  workload: PeersWorkload;
  onProgress: (label: string) => void;
}

/** One precision measured on all three engines, or why it was not. */
export type PairResult =
  | {
      /** The precision (f16, q8, q4), or `gguf <file type>` for a GGUF given with --model. */
      precision: Precision | string;
      status: 'ok';
      ours: Samples;
      floor: Samples;
      /** How First Frame's slot ran its K/V, which the floor then ran too ('bound': K/V in place). */
      runPath: 'bound' | 'ort-node';
      llama: Samples;
      /** f16: free-running greedy ids of both engines on the check prompt, position by position. */
      greedyCheck: { numSame: number; numCompared: number; firstDifferentAt: number | null };
      /** Teacher-forced: llama.cpp's greedy successor equals ours at this many positions. */
      agreement: { numSame: number; numCompared: number };
      weightBytesPerToken: { ours: number; llama: number };
      ggufMadeMs: number | null;
    }
  | { precision: Precision | string; status: 'skipped'; reason: string };

/** One model both engines run: our model reference and its ONNX file, llama.cpp's GGUF. */
export interface PairTarget {
  label: string;
  modelRef: string;
  model: CatalogueModel;
  onnxPath: string;
  ggufPath: string;
  ggufMadeMs: number | null;
}

let counter = 0;

/** One greedy First Frame request on exact ids (a text prompt that encodes to them), end tokens ignored. */
async function askOurs(ctx: PairContext, modelRef: string, text: string, ids: number[], numTokens: number) {
  const result = await collectGeneration(ctx.runtime, {
    requestId: `peers-pair-${++counter}`,
    modelId: modelRef,
    prompt: { kind: 'text', text },
    maxTokens: numTokens,
    temperature: 0,
    ignoreEos: true,
  });
  const t = result.timeline;
  if (t.numPromptTokens !== ids.length)
    throw new Error(
      `${modelRef}: the prompt became ${t.numPromptTokens} tokens, not the ${ids.length} the other engines get`,
    );
  if (t.finishReason !== 'length' || result.tokenIds.length !== numTokens)
    throw new Error(
      `${modelRef}: request ended ${t.finishReason} after ${result.tokenIds.length} tokens: ${result.errorMessage}`,
    );
  return { ttftMs: t.ttftMs ?? Number.NaN, itlMs: t.itlMs, ids: result.tokenIds };
}

/** llama.cpp free-running greedy from `ids` for `numTokens` tokens, picking only ids ours may. */
async function llamaGreedy(
  model: LlamaCppModel,
  ids: readonly number[],
  numTokens: number,
): Promise<number[]> {
  const out = [(await model.prefill(ids, true)).nextId];
  while (out.length < numTokens) out.push((await model.step(out.at(-1)!, true)).nextId);
  return out;
}

/** llama.cpp teacher-forced on `forced` after `ids`: its greedy successor at each position (untimed). */
async function llamaForced(model: LlamaCppModel, ids: readonly number[], forced: readonly number[]) {
  const predicted = [(await model.prefill(ids, true)).nextId];
  for (const id of forced.slice(0, -1)) predicted.push((await model.step(id, true)).nextId);
  return predicted;
}

function compare(a: readonly number[], b: readonly number[]) {
  const numCompared = Math.min(a.length, b.length);
  let numSame = 0;
  let firstDifferentAt: number | null = null;
  for (let i = 0; i < numCompared; i++) {
    if (a[i] === b[i]) numSame++;
    else firstDifferentAt ??= i;
  }
  return { numSame, numCompared, firstDifferentAt };
}

/**
 * One precision: the variant and its GGUF made if missing, then measureTarget: a greedy check, then `numRuns`
 * rounds, each running First Frame, the floor and llama.cpp in turn on the same ids. llama.cpp
 * decodes teacher-forced on First Frame's output ids (same positions, same count); an untimed
 * second pass, limited to the ids ours may pick, compares its greedy successor with ours.
 */
export async function measurePair(ctx: PairContext, precision: Precision): Promise<PairResult> {
  const { variant } = PRECISIONS[precision];
  const problem = ensureVariant(ctx.modelDir, precision);
  if (problem) return { precision, status: 'skipped', reason: problem };
  const onnxPath = realpathSync(variantOnnxPath(ctx.modelDir, variant));
  const entries = await ctx.runtime.refreshModels();
  // Found by its file: a float folder's model.onnx is listed by the weights it holds (`name:fp16`).
  const entry =
    entries.find((e) => e.status === 'ok' && realpathSync(e.model.graph.onnxPath) === onnxPath) ??
    entries.find((e) => e.modelId === `${ctx.model.name}:${variant}`);
  const modelRef = entry?.modelId ?? `${ctx.model.name}:${variant}`;
  if (entry?.status !== 'ok')
    return {
      precision,
      status: 'skipped',
      reason: `${modelRef}: ${entry?.status === 'broken' ? entry.error : 'not listed'}`,
    };
  const gguf = ggufFor(ctx.modelDir, precision, ctx.bundledModelsDir);
  return measureTarget(ctx, {
    label: precision,
    modelRef,
    model: entry.model,
    onnxPath: variantOnnxPath(ctx.modelDir, variant),
    ggufPath: gguf.path,
    ggufMadeMs: gguf.makeMs,
  });
}

/**
 * One model on both engines (and the floor): a greedy check, then `numRuns` rounds on the same
 * ids, llama.cpp teacher-forced on First Frame's output (see measurePair).
 */
export async function measureTarget(ctx: PairContext, target: PairTarget): Promise<PairResult> {
  const { label: precision, modelRef, onnxPath } = target;
  const entry = { model: target.model };
  const gguf = { path: target.ggufPath, makeMs: target.ggufMadeMs };
  const { numPromptTokens, numOutputTokens, numRuns, numThreads } = ctx.workload;
  const llama = await ctx.llama.open(gguf.path, numThreads, 2 * (numPromptTokens + numOutputTokens) + 64, {
    numUsable: ctx.model.folder.tokenizer.vocabSize,
    numLogits: ctx.model.folder.shape.vocabSize,
  });
  let floor: Floor | BoundFloor | null = null;
  try {
    const prompt = (i: number) => promptOfTokens(ctx.model.folder.tokenizer, numPromptTokens, 8000 + i);
    // The check doubles as every engine's warm-up.
    const checkText = prompt(0);
    const checkIds = ctx.model.folder.tokenizer.encode(checkText);
    const oursCheck = await askOurs(ctx, modelRef, checkText, checkIds, numOutputTokens);
    const greedyCheck = compare(oursCheck.ids, await llamaGreedy(llama, checkIds, numOutputTokens));
    // The floor runs the slot's own run path, so engine over floor compares like with like.
    const slot = ctx.runtime.slots().find((s) => s.model.graph.onnxPath === entry.model.graph.onnxPath);
    const runPath = slot?.runPath?.path === 'bound' ? 'bound' : 'ort-node';
    const threads = slotSessionThreadsOf(ctx.runtime.options);
    floor =
      runPath === 'bound'
        ? await BoundFloor.open(entry.model, threads, 2 * (numPromptTokens + numOutputTokens) + 64)
        : await Floor.open(entry.model, threads);
    await floor.decodeStepsMs(checkIds, 2);
    const ours: Samples = { ttftMs: [], itlMs: [] };
    const floorSamples: Samples = { ttftMs: [], itlMs: [] };
    const llamaSamples: Samples = { ttftMs: [], itlMs: [] };
    const agreement = { numSame: 0, numCompared: 0 };
    for (let run = 1; run <= numRuns; run++) {
      const text = prompt(run);
      const ids = ctx.model.folder.tokenizer.encode(text);
      const oursRun = await askOurs(ctx, modelRef, text, ids, numOutputTokens);
      ours.ttftMs.push(oursRun.ttftMs);
      ours.itlMs.push(...oursRun.itlMs);
      floorSamples.ttftMs.push(await floor.prefillMs(ids, null));
      floorSamples.itlMs.push(...(await floor.decodeStepsMs(ids, numOutputTokens - 1)));
      llamaSamples.ttftMs.push((await llama.prefill(ids, false)).ms);
      for (const id of oursRun.ids.slice(0, -1)) llamaSamples.itlMs.push((await llama.step(id, false)).ms);
      const same = compare(await llamaForced(llama, ids, oursRun.ids), oursRun.ids);
      agreement.numSame += same.numSame;
      agreement.numCompared += same.numCompared;
      ctx.onProgress(`${precision}: round ${run}/${numRuns}`);
    }
    return {
      precision,
      status: 'ok',
      ours,
      floor: floorSamples,
      runPath,
      llama: llamaSamples,
      greedyCheck,
      agreement,
      weightBytesPerToken: {
        ours: onnxWeightBytesPerToken(onnxPath),
        llama: ggufWeightBytesPerToken(gguf.path),
      },
      ggufMadeMs: gguf.makeMs,
    };
  } finally {
    await floor?.close();
    await llama.close();
  }
}
