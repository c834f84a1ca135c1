/**
 * One engine serving one GGUF in a process of its own, so its resident memory is its own: the
 * engine starts (First Frame: a runtime whose models folder holds the file, its data folder as
 * given, cold or warm; llama.cpp: the file loaded and a context made), answers one request of
 * SERVING_TOKENS greedy tokens, and prints its figures as one JSON line (ServingFigures). Run by
 * serving.ts as `node --import tsx serving-child.ts '<ServingJob as JSON>'`.
 */
import path from 'node:path';
import { collectGeneration } from '../../src-main/runtime/collect';
import { Runtime } from '../../src-main/runtime/runtime';
import { BUNDLED_MODELS_DIR } from '../../src-main/cli/paths';
import { print } from '../../src-main/printable';
import { loadLlamaCpp } from './llama-cpp';

/** Output tokens of the one request each engine answers. */
export const SERVING_TOKENS = 16;

/** The prompt both engines answer (random weights: only its length matters). */
export const SERVING_PROMPT = 'Tell me, in a few words, what a quiet evening at home looks like.';

/** llama.cpp's batch in the serving run (tokens): its own default. */
export const LLAMA_BATCH = 512;

/** What serving.ts asks of one child. */
export interface ServingJob {
  engine: 'first-frame' | 'llama.cpp';
  /** The GGUF (llama.cpp) or the models folder holding it (First Frame). */
  file: string;
  modelsDir: string;
  /** First Frame's data folder: empty for a cold start, as a previous child left it for a warm one. */
  dataDir: string;
  numThreads: number;
  /** llama.cpp's context (tokens); First Frame's K/V grows with the tokens held. */
  contextSize: number;
}

/** One child's figures (bytes, ms). */
export interface ServingFigures {
  engine: ServingJob['engine'];
  /** From before the engine starts (runtime created / model opened) to the first token. */
  startToFirstTokenMs: number;
  /** Resident memory after the answer, the session still loaded. */
  servingRssBytes: number;
  /** The process's peak resident memory (getrusage maxrss). */
  peakRssBytes: number;
  /** First Frame, cold: the largest resident memory sampled at a conversion progress report; else null. */
  conversionPeakRssBytes: number | null;
  numTokens: number;
}

async function firstFrame(job: ServingJob): Promise<ServingFigures> {
  const startMs = performance.now();
  const runtime = await Runtime.create({
    bundledModelsDir: BUNDLED_MODELS_DIR,
    userModelsDir: job.modelsDir,
    graphCacheDir: path.join(job.dataDir, 'ort-graphs'),
    convertedModelsDir: path.join(job.dataDir, 'ort-graphs', 'gguf'),
    numThreads: job.numThreads,
    isSpareWorker: false,
  });
  let conversionPeakRssBytes: number | null = null;
  runtime.onSlotConversion(() => {
    conversionPeakRssBytes = Math.max(conversionPeakRssBytes ?? 0, process.memoryUsage().rss);
  });
  let firstTokenMs: number | null = null;
  try {
    const modelId = `${path.basename(job.file).replace(/\.gguf$/i, '')}`;
    const result = await collectGeneration(
      runtime,
      {
        requestId: 'serving',
        modelId,
        prompt: { kind: 'chat', messages: [{ role: 'user', content: SERVING_PROMPT }] },
        maxTokens: SERVING_TOKENS,
        temperature: 0,
        conversationId: null,
      },
      () => (firstTokenMs ??= performance.now()),
    );
    if (result.timeline.finishReason !== 'stop' && result.timeline.finishReason !== 'length')
      throw new Error(`First Frame request ended ${result.timeline.finishReason}: ${result.errorMessage}`);
    return {
      engine: 'first-frame',
      startToFirstTokenMs: firstTokenMs! - startMs,
      servingRssBytes: process.memoryUsage().rss,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      conversionPeakRssBytes,
      numTokens: result.timeline.numOutputTokens,
    };
  } finally {
    await runtime.close();
  }
}

async function llamaCpp(job: ServingJob): Promise<ServingFigures> {
  const engine = await loadLlamaCpp();
  if ('error' in engine) throw new Error(engine.error);
  const startMs = performance.now();
  // llama.cpp's own default batch (512): a batch of the whole context sizes its buffers for 2048 rows of logits.
  const batchSize = Math.min(LLAMA_BATCH, job.contextSize);
  const model = await engine.open(
    job.file,
    job.numThreads,
    job.contextSize,
    { numUsable: 1, numLogits: 1 },
    batchSize,
  );
  const ids = model.tokenize(SERVING_PROMPT);
  let { nextId } = await model.prefill(ids, false);
  const firstTokenMs = performance.now();
  for (let i = 1; i < SERVING_TOKENS; i++) ({ nextId } = await model.step(nextId, false));
  const figures: ServingFigures = {
    engine: 'llama.cpp',
    startToFirstTokenMs: firstTokenMs - startMs,
    servingRssBytes: process.memoryUsage().rss,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    conversionPeakRssBytes: null,
    numTokens: SERVING_TOKENS,
  };
  await model.close();
  await engine.close();
  return figures;
}

const job = JSON.parse(process.argv[2] ?? '{}') as ServingJob;
const figures = job.engine === 'llama.cpp' ? await llamaCpp(job) : await firstFrame(job);
print(JSON.stringify(figures));
process.exit(0);
