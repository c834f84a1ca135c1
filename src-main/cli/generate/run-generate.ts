import { existsSync } from 'node:fs';
import path from 'node:path';
import { collectGeneration } from '../../runtime/collect';
import { Runtime } from '../../runtime/runtime';
import type { CollectedGeneration } from '../../runtime/collect';
import { runtimeFoldersOf } from '../../service/data-folder';
import { makeNewFilesPrivate, makePrivateFolder } from '../../private-files';
import { print, printError, printPart } from '../../printable';
import { BUNDLED_MODELS_DIR, DEFAULT_DATA_DIR } from '../paths';
import { UsageError } from '../usage-error';
import { GENERATE_USAGE, parseGenerateArgs } from './args';
import type { GenerateArgs } from './args';
import { modelRefOf } from './model-ref';

/**
 * `npm run generate`: one real generation through the runtime (tokenize → prefill → decode with
 * the past K/V fed back → detokenize) on any model the app runs, with the app's data folder.
 * Exit 0 done, 1 refused or failed, 2 bad command line.
 */
export async function runGenerate(argv: string[]): Promise<number> {
  let args: GenerateArgs;
  try {
    args = parseGenerateArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printError(`${error.message}\n${GENERATE_USAGE}`);
    return 2;
  }
  if (args.kind === 'help') {
    print(GENERATE_USAGE);
    return 0;
  }
  const asPath = args.model === null ? null : path.resolve(args.model);
  const modelPath = asPath && existsSync(asPath) ? asPath : null;
  const dataDir = args.dataDir ?? DEFAULT_DATA_DIR;
  // The graph caches it writes there are the user's alone, as the app makes them.
  makeNewFilesPrivate();
  makePrivateFolder(dataDir);
  const runtime = await Runtime.create({
    bundledModelsDir: BUNDLED_MODELS_DIR,
    ...runtimeFoldersOf(dataDir),
    modelPaths: modelPath ? [modelPath] : [],
    prefillChunkTokens: null,
    // One generation, one load: a worker started ahead of a second load would only cost startup.
    isSpareWorker: false,
  });
  try {
    return await generateOn(runtime, args, modelPath);
  } finally {
    await runtime.close();
  }
}

async function generateOn(
  runtime: Runtime,
  args: Extract<GenerateArgs, { kind: 'generate' }>,
  modelPath: string | null,
): Promise<number> {
  const modelId = modelRefOf(runtime.models(), {
    ...args,
    modelPath,
    defaultModelId: runtime.defaultModelId(),
  });
  // Refused before anything runs: unknown (the catalogue lists what it knows), not supported yet, broken.
  const model = runtime.catalogue.resolve(modelId ?? '');
  if (model instanceof Error) {
    printError(model.message);
    return 1;
  }
  if (model.conversion)
    printError(`converting ${model.conversion.file} into ${model.conversion.dir} (once; later runs load it)`);
  const result = await collectGeneration(
    runtime,
    {
      requestId: 'generate-1',
      modelId: model.modelId,
      prompt: args.isChat
        ? { kind: 'chat', messages: [{ role: 'user', content: args.prompt }] }
        : { kind: 'text', text: args.prompt },
      maxTokens: args.maxTokens,
      temperature: args.temperature,
      seed: args.seed,
    },
    args.isJson ? undefined : (chunk) => printPart(chunk.text),
  );
  if (args.isJson) print(JSON.stringify(summarize(args.prompt, result), null, 2));
  else printFooter(result);
  return result.errorMessage && result.timeline.finishReason !== 'length' ? 1 : 0;
}

/** The measured facts of one generation: prefill and per-token times come from its timeline. */
function summarize(prompt: string, result: CollectedGeneration) {
  const t = result.timeline;
  return {
    prompt,
    text: result.text,
    model: t.modelId,
    finish_reason: t.finishReason,
    error: result.errorMessage,
    prompt_tokens: t.numPromptTokens,
    output_tokens: t.numOutputTokens,
    ttft_ms: t.ttftMs,
    prefill_ms: t.parts.prefill,
    slot_load_ms: t.parts.slotLoad,
    per_token_ms: t.itlMs,
    mean_per_token_ms: t.itlMs.length > 0 ? t.itlMs.reduce((a, b) => a + b, 0) / t.itlMs.length : null,
    e2e_ms: t.e2eMs,
    parts_ms: t.parts,
  };
}

function printFooter(result: CollectedGeneration): void {
  const s = summarize('', result);
  const perToken = s.mean_per_token_ms === null ? 'n/a' : `${s.mean_per_token_ms.toFixed(2)} ms`;
  print();
  if (result.errorMessage) printError(`error: ${result.errorMessage}`);
  printError(
    `[${s.model}] ${s.prompt_tokens} prompt tokens, ${s.output_tokens} output tokens, finish ${s.finish_reason}; ` +
      `TTFT ${s.ttft_ms?.toFixed(1) ?? 'n/a'} ms (slot load ${s.slot_load_ms.toFixed(1)} ms, prefill ${s.prefill_ms.toFixed(1)} ms), ${perToken} per token`,
  );
}
