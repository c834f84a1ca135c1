/**
 * `npm run bench -- peers [--engines llama.cpp,transformers.js] [--model DIR] [--threads N]
 * [--json]`: First Frame beside other engines on one model folder, the same token ids and the
 * same thread count, in one process. llama.cpp (node-llama-cpp, `npm run peers:install`) runs
 * the same weights converted to GGUF at each precision (f16, q8_0, q4_0) with a memory-bandwidth
 * roofline; transformers.js runs the same ONNX file through its generate(), single-turn,
 * multi-turn (context pages) and concurrent. The floor (bare session.run) runs beside both.
 */
import path from 'node:path';
import type { CatalogueModel } from '../../src-main/runtime';
import { Floor } from '../first-frame/floor';
import { openModelRuntime } from '../load/model-runtime';
import { parsePeersArgs } from './args';
import { loadLlamaCpp } from './llama-cpp';
import type { LlamaSection } from './llama-report';
import type { PeersContext } from './measure';
import { concurrent, multiTurn, singleTurn } from './measure';
import { askOurs } from './ours';
import { loadPeer } from './peer';
import { measurePair } from './precision';
import type { PairContext } from './precision';
import { buildPeersReport, printPeers } from './report';
import type { TransformersResults } from './report';
import { measureReadBandwidth } from './roofline';
import { singleTurnPrompts } from './workload';
import { print, printStatus } from '../../src-main/printable';

/** Entry point for `npm run bench -- peers`. */
export async function run(argv: string[]): Promise<number> {
  const { modelDir, variant, isJson, engines, precisions, workload } = parsePeersArgs(argv);
  const { runtime, modelId, model } = await openModelRuntime(
    modelDir,
    { numThreads: workload.numThreads, maxSeats: Math.max(4, workload.numConversations) },
    variant,
  );
  const onProgress = (label: string) => printStatus(label, 64);
  try {
    let llama: LlamaSection | null = null;
    if (engines.includes('llama.cpp')) {
      const engine = await loadLlamaCpp();
      const bandwidth = 'error' in engine ? null : measureReadBandwidth();
      const pairs = [];
      if (!('error' in engine)) {
        const ctx: PairContext = {
          runtime,
          modelId,
          modelDir,
          bundledModelsDir: path.dirname(modelDir),
          model,
          llama: engine,
          workload,
          onProgress,
        };
        for (const precision of precisions) pairs.push(await measurePair(ctx, precision));
        await engine.close();
      }
      llama = { engine: 'error' in engine ? engine : { version: engine.version }, pairs, bandwidth };
    }
    const transformers = engines.includes('transformers.js')
      ? await transformersCases(runtime, modelId, model, modelDir, workload, onProgress)
      : null;
    const report = buildPeersReport({
      modelId,
      modelDir,
      onnxBytes: model.graph.weightBytes,
      workload,
      llama,
      transformers,
    });
    if (isJson) print(JSON.stringify(report, null, 2));
    else printPeers(report);
    return 0;
  } finally {
    await runtime.close();
  }
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
  const floor = await Floor.open(model, workload.numThreads);
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
  await ctx.floor.decodeStepsMs(ctx.folder.tokenizer.encode(ctx.folder.tokenizer.renderChat(messages!)), 4);
  await ctx.peer?.generate(ctx.folder.tokenizer.renderChat(messages!), 4);
  ctx.onProgress('warm-up done');
}
