/**
 * `npm run bench -- peers [--model DIR] [--json]`: on one model folder and the same prompts,
 * the floor (bare ONNX Runtime prefill + decode loop, no engine), the peer
 * (@huggingface/transformers' generate, one request at a time) and First Frame (single-turn,
 * multi-turn with context pages, conversations at once), with the issue's ratios.
 */
import { Floor } from '../first-frame/floor';
import { openModelRuntime } from '../load/model-runtime';
import { parsePeersArgs } from './args';
import type { PeersContext } from './measure';
import { concurrent, multiTurn, singleTurn } from './measure';
import { askOurs } from './ours';
import { loadPeer } from './peer';
import { buildPeersReport, printPeers } from './report';
import { singleTurnPrompts } from './workload';

/** Entry point for `npm run bench -- peers`. */
export async function run(argv: string[]): Promise<number> {
  const { modelDir, variant, isJson, workload } = parsePeersArgs(argv);
  const { runtime, modelId, model } = await openModelRuntime(
    modelDir,
    { numThreads: workload.numThreads, maxSeats: Math.max(4, workload.numConversations) },
    variant,
  );
  const floor = await Floor.open(model, workload.numThreads).catch(async (error: Error) => {
    await runtime.close();
    throw error;
  });
  try {
    const peer = await loadPeer(modelDir, workload.numThreads);
    const onProgress = (label: string) =>
      void process.stderr.write(process.stderr.isTTY ? `\r${label.padEnd(64)}` : `${label}\n`);
    const ctx: PeersContext = {
      runtime,
      modelId,
      folder: model.folder,
      floor,
      peer: 'error' in peer ? null : peer,
      workload,
      onProgress,
    };
    await warmUp(ctx);
    const single = await singleTurn(ctx);
    const multi = await multiTurn(ctx);
    const together = await concurrent(ctx);
    const report = buildPeersReport({
      modelId,
      modelDir,
      onnxBytes: model.graph.weightBytes,
      workload,
      peer,
      single,
      multi,
      together,
    });
    if (isJson) console.log(JSON.stringify(report, null, 2));
    else printPeers(report);
    return 0;
  } finally {
    await floor.close();
    await runtime.close();
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
