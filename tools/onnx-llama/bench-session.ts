// Measures a model folder on onnxruntime-node CPU: file read, session create,
// one prefill of N tokens and M decode steps (ms per step).
// usage: npx tsx tools/onnx-llama/bench-session.ts --model DIR [--file onnx/model_q4.onnx] [--prompt 512] [--steps 32] [--threads N]

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { validateLlamaConfig } from './config';
import { greedyDecode, kvLayoutOf } from './ort-runner';
import { seededUniform } from './random-weights';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      file: { type: 'string' },
      prompt: { type: 'string' },
      steps: { type: 'string' },
      threads: { type: 'string' },
    },
  });
  if (!values.model) throw new Error('--model DIR is required');
  const numPromptTokens = Number(values.prompt ?? 512);
  const numDecodeSteps = Number(values.steps ?? 32);
  const config = validateLlamaConfig(JSON.parse(readFileSync(join(values.model, 'config.json'), 'utf8')));
  let startMs = performance.now();
  const file = join(values.model, values.file ?? join('onnx', 'model.onnx'));
  const bytes = readFileSync(file);
  const readMs = performance.now() - startMs;
  startMs = performance.now();
  const options: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all' };
  if (values.threads) options.intraOpNumThreads = Number(values.threads);
  const session = await ort.InferenceSession.create(bytes, options);
  const createMs = performance.now() - startMs;
  const uniform = seededUniform(7);
  const prompt = Array.from({ length: numPromptTokens }, () =>
    Math.floor(uniform() * Math.min(config.vocab_size, 4096)),
  );
  const run = await greedyDecode(session, kvLayoutOf(config), prompt, numDecodeSteps + 1);
  const meanStepMs = run.decodeStepMs.reduce((a, b) => a + b, 0) / run.decodeStepMs.length;
  console.log(`model ${file} (${(bytes.length / 1e6).toFixed(1)} MB)`);
  console.log(`  read ${readMs.toFixed(0)} ms, InferenceSession.create ${createMs.toFixed(0)} ms`);
  console.log(`  prefill ${numPromptTokens} tokens: ${run.prefillMs.toFixed(0)} ms`);
  console.log(
    `  decode ${run.decodeStepMs.length} steps: mean ${meanStepMs.toFixed(1)} ms, median ${median(run.decodeStepMs).toFixed(1)} ms`,
  );
  console.log(`  rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
  await session.release();
}

await main();
