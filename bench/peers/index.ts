/**
 * `npm run bench -- peers [--engines llama.cpp,transformers.js] [--model DIR|FILE.gguf] [--threads N,M]
 * [--prompt-tokens N,M] [--spin-threads on|off]
 * [--serving on|off|only] [--context N]
 * [--json]`: First Frame beside other engines on one model folder (or one GGUF file: llama.cpp runs
 * it as it is, First Frame its conversion, timed with its peak memory), the same token ids and the
 * same thread count, in one process. llama.cpp (node-llama-cpp, `npm run peers:install`) runs
 * the same weights converted to GGUF at each precision (f16, q8_0, q4_0) with a memory-bandwidth
 * roofline; transformers.js runs the same ONNX file through its generate(), single-turn,
 * multi-turn (context pages) and concurrent. The floor (bare session.run) runs beside both.
 */
import path from 'node:path';
import { slotSessionThreadsOf } from '../../src-main/runtime/runtime-parts';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import { Floor } from '../first-frame/floor';
import { openModelRuntime } from '../load/model-runtime';
import { parsePeersArgs } from './args';
import { loadLlamaCpp } from './llama-cpp';
import type { LlamaSection } from './llama-report';
import type { PeersContext } from './measure';
import { concurrent, multiTurn, singleTurn } from './measure';
import { askOurs } from './ours';
import { loadPeer } from './peer';
import { convertForPeers, openGgufRuntime } from './gguf-file';
import type { GgufConversionFigures } from './gguf-file';
import { measureServing } from './serving';
import { measurePair, measureTarget } from './precision';
import type { PairContext, PairResult } from './precision';
import { buildPeersReport, printPeers } from './report';
import type { TransformersResults } from './report';
import { measureReadBandwidth } from './roofline';
import { singleTurnPrompts } from './workload';
import { print, printStatus } from '../../src-main/printable';

/** Entry point for `npm run bench -- peers`. */
export async function run(argv: string[]): Promise<number> {
  const args = parsePeersArgs(argv);
  const { modelDir, ggufFile, variant, isJson, engines, precisions, workload, threadCounts, settings } = args;
  const { promptTokenCounts } = args;
  const onProgress = (label: string) => printStatus(label, 64);
  if (ggufFile) return runGgufFile(ggufFile, isJson, args, onProgress);
  const llama: LlamaSection[] = [];
  let transformers: TransformersResults | null = null;
  let opened: Awaited<ReturnType<typeof openModelRuntime>> | null = null;
  // One runtime per thread count (threads are a slot's session option), every engine alike.
  for (const numThreads of threadCounts) {
    const atThreads = { ...workload, numThreads };
    const current = await openModelRuntime(
      modelDir,
      { ...settings, numThreads, maxSeats: Math.max(4, workload.numConversations) },
      variant,
    );
    opened ??= current;
    try {
      // One section per prompt length: the length targets compare them within this run.
      for (const numPromptTokens of engines.includes('llama.cpp') ? promptTokenCounts : [])
        llama.push(
          await llamaCppSection(
            { ...current, modelDir, workload: { ...atThreads, numPromptTokens }, onProgress },
            async (pairCtx) => {
              const pairs: PairResult[] = [];
              for (const precision of precisions) pairs.push(await measurePair(pairCtx, precision));
              return pairs;
            },
          ),
        );
      // transformers.js's cases run once, at the first thread count.
      if (engines.includes('transformers.js') && numThreads === threadCounts[0])
        transformers = await transformersCases(
          current.runtime,
          current.modelId,
          current.model,
          modelDir,
          atThreads,
          onProgress,
        );
    } finally {
      await current.runtime.close();
    }
  }
  const report = buildPeersReport({
    modelId: opened!.modelId,
    modelDir,
    onnxBytes: opened!.model.graph.weightBytes,
    workload,
    threadCounts,
    llama: engines.includes('llama.cpp') ? llama : null,
    transformers,
    conversion: null,
    serving: null,
  });
  if (isJson) print(JSON.stringify(report, null, 2));
  else printPeers(report);
  return 0;
}

/**
 * `--model FILE.gguf`: each engine serving the file in a process of its own (serving.ts: memory,
 * disk, cold and warm first token), then, unless `--serving only`, the file converted once here
 * (timed, peak memory) and at each thread count llama.cpp on the file beside First Frame (and the
 * floor) on its conversion.
 */
async function runGgufFile(
  file: string,
  isJson: boolean,
  run: Pick<
    ReturnType<typeof parsePeersArgs>,
    'workload' | 'threadCounts' | 'settings' | 'serving' | 'contextSize'
  >,
  onProgress: (label: string) => void,
): Promise<number> {
  const { workload, threadCounts, settings } = run;
  const serving =
    run.serving === 'off'
      ? null
      : measureServing(file, { numThreads: threadCounts[0]!, contextSize: run.contextSize, onProgress });
  let conversion: GgufConversionFigures | null = null;
  const llama: LlamaSection[] = [];
  let modelId = path.basename(file);
  if (run.serving !== 'only') {
    onProgress(`converting ${path.basename(file)}`);
    conversion = convertForPeers(file);
    for (const numThreads of threadCounts) {
      const atThreads = { ...workload, numThreads };
      const current = await openGgufRuntime(file, { ...settings, numThreads, maxSeats: 4 });
      modelId = current.modelId;
      try {
        const ctx = { ...current, modelDir: path.dirname(file), workload: atThreads, onProgress };
        llama.push(
          await llamaCppSection(ctx, async (pairCtx) => [await measureTarget(pairCtx, current.target)]),
        );
      } finally {
        await current.runtime.close();
      }
    }
  }
  const report = buildPeersReport({
    modelId,
    modelDir: file,
    onnxBytes: conversion?.dataBytes ?? 0,
    workload,
    threadCounts,
    llama: run.serving === 'only' ? null : llama,
    transformers: null,
    conversion,
    serving,
  });
  if (isJson) print(JSON.stringify(report, null, 2));
  else printPeers(report);
  return 0;
}

/** llama.cpp beside First Frame and the floor on each pair `measure` runs, at the workload's thread count. */
async function llamaCppSection(
  ctx: Omit<PairContext, 'llama' | 'bundledModelsDir'>,
  measure: (pairCtx: PairContext) => Promise<PairResult[]>,
): Promise<LlamaSection> {
  const engine = await loadLlamaCpp();
  const bandwidth = 'error' in engine ? null : measureReadBandwidth();
  const pairs: PairResult[] = [];
  if (!('error' in engine)) {
    const pairCtx: PairContext = { ...ctx, bundledModelsDir: path.dirname(ctx.modelDir), llama: engine };
    pairs.push(...(await measure(pairCtx)));
    await engine.close();
  }
  const engineInfo = 'error' in engine ? engine : { version: engine.version };
  const { canSpinThreads } = ctx.runtime.settings;
  const { numThreads, numPromptTokens } = ctx.workload;
  return { engine: engineInfo, numThreads, numPromptTokens, canSpinThreads, pairs, bandwidth };
}

/** transformers.js's three cases beside First Frame and the floor. */
async function transformersCases(
  runtime: PeersContext['runtime'],
  modelId: string,
  model: CatalogueModel,
  modelDir: string,
  workload: PeersContext['workload'],
  onProgress: (label: string) => void,
): Promise<TransformersResults> {
  const { folder } = model;
  const floor = await Floor.open(model, slotSessionThreadsOf(runtime.options));
  try {
    const peer = await loadPeer(modelDir, workload.numThreads);
    const ctx: PeersContext = {
      runtime,
      modelId,
      folder,
      floor,
      peer: 'error' in peer ? null : peer,
      workload,
      onProgress,
    };
    await warmUp(ctx);
    const single = await singleTurn(ctx);
    const multi = await multiTurn(ctx);
    const together = await concurrent(ctx);
    return { peer, single, multi, together };
  } finally {
    await floor.close();
  }
}

/** One request per engine before measuring: slot load, session warm-up, first-run allocations. */
async function warmUp(ctx: PeersContext): Promise<void> {
  const [messages] = singleTurnPrompts(ctx.folder.tokenizer, { ...ctx.workload, numRuns: 1 });
  await askOurs(ctx.runtime, ctx.modelId, messages!, 4);
  await ctx.floor.decodeStepsMs(
    ctx.folder.tokenizer.encodePrompt(ctx.folder.tokenizer.renderChat(messages!)),
    4,
  );
  await ctx.peer?.generate(ctx.folder.tokenizer.renderChat(messages!).text, 4);
  ctx.onProgress('warm-up done');
}
