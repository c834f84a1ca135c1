/**
 * `npm run generate -- "Once upon a time" [--max-tokens N] [--chat] [--temperature T] [--seed S]
 * [--model DIR] [--variant NAME] [--json]`: one real generation on the bundled model (tokenize → prefill →
 * decode with the past K/V fed back → detokenize) through the runtime, streaming the text.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { collectGeneration, Runtime } from '../runtime';
import type { CollectedGeneration } from '../runtime';
import { BUNDLED_MODELS_DIR, modelRefFor } from './paths';
import { print, printError, printPart } from '../printable';
import { reasonOf } from '../telemetry/log';

const USAGE =
  'usage: npm run generate -- "PROMPT" [--max-tokens N] [--chat] [--temperature T] [--seed S] [--model DIR] [--variant q4] [--json]';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'max-tokens': { type: 'string', default: '64' },
      temperature: { type: 'string' },
      seed: { type: 'string' },
      model: { type: 'string' },
      variant: { type: 'string' },
      chat: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const prompt = positionals.join(' ');
  if (!prompt) {
    printError(USAGE);
    return 2;
  }
  const modelDir = values.model ? path.resolve(values.model) : null;
  const runtime = await Runtime.create({
    bundledModelsDir: modelDir ? path.dirname(modelDir) : BUNDLED_MODELS_DIR,
    prefillChunkTokens: null,
  });
  try {
    const modelId = modelRefFor(modelDir, values.variant) ?? runtime.defaultModelId() ?? undefined;
    const result = await collectGeneration(
      runtime,
      {
        requestId: 'generate-1',
        modelId,
        prompt: values.chat
          ? { kind: 'chat', messages: [{ role: 'user', content: prompt }] }
          : { kind: 'text', text: prompt },
        maxTokens: Number(values['max-tokens']),
        temperature: values.temperature === undefined ? undefined : Number(values.temperature),
        seed: values.seed === undefined ? undefined : Number(values.seed),
      },
      values.json ? undefined : (chunk) => printPart(chunk.text),
    );
    if (values.json) print(JSON.stringify(summarize(prompt, result), null, 2));
    else printFooter(result);
    return result.errorMessage && result.timeline.finishReason !== 'length' ? 1 : 0;
  } finally {
    await runtime.close();
  }
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    printError(reasonOf(error));
    process.exit(1);
  },
);
