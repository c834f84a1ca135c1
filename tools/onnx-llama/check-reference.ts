// Checks the ONNX conversion against PyTorch: converts a safetensors file in
// memory, runs greedy decode with onnxruntime (K/V cache) for each reference
// prompt and compares the tokens (and first-step logits when given) to torch's.
// usage: npx tsx tools/onnx-llama/check-reference.ts [--weights F] [--config C] [--reference R] [--dtype float16|float32]
// Reference JSON: an array (or {cases: [...]}) of {prompt: number[], tokens: number[], first_logits?: number[]}
// (prompt_ids / input_ids and greedy_tokens / output_ids are accepted too). Exit code 1 on any mismatch.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { validateLlamaConfig } from './config';
import { buildLlamaOnnx } from './llama-graph';
import { greedyDecode, kvLayoutOf } from './ort-runner';
import { readSafetensors } from './safetensors';
import { withHfPrefixes } from './weights';

/** One torch reference case: prompt ids, torch's greedy continuation, optional first-step logits. */
interface ReferenceCase {
  prompt: number[];
  tokens: number[];
  firstLogits?: number[];
}

function readCases(path: string): ReferenceCase[] {
  const json = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  const raw = (Array.isArray(json) ? json : ((json as { cases?: unknown[] }).cases ?? [])) as Array<
    Record<string, unknown>
  >;
  if (raw.length === 0) throw new Error(`${path}: no reference cases found`);
  return raw.map((entry, index) => {
    const prompt = entry.prompt ?? entry.prompt_ids ?? entry.input_ids;
    const tokens = entry.tokens ?? entry.greedy_tokens ?? entry.output_ids;
    if (!Array.isArray(prompt) || !Array.isArray(tokens))
      throw new Error(`${path}: case ${index} lacks prompt/tokens arrays`);
    const firstLogits = entry.first_logits as number[] | undefined;
    return { prompt: prompt as number[], tokens: tokens as number[], firstLogits };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      weights: { type: 'string' },
      config: { type: 'string' },
      reference: { type: 'string' },
      dtype: { type: 'string' },
    },
  });
  const weightsPath = values.weights ?? 'tools/train-model/out/model.safetensors';
  const configPath = values.config ?? 'tools/train-model/out/config.json';
  const referencePath = values.reference ?? 'tools/train-model/out/reference.json';
  const weightDtype = values.dtype === 'float16' ? 'float16' : 'float32';
  const config = validateLlamaConfig(JSON.parse(readFileSync(configPath, 'utf8')));
  const weights = withHfPrefixes(readSafetensors(weightsPath).tensors);
  const session = await ort.InferenceSession.create(buildLlamaOnnx(config, weights, { weightDtype }), {
    graphOptimizationLevel: 'all',
  });
  let numMismatches = 0;
  for (const [index, reference] of readCases(referencePath).entries()) {
    const run = await greedyDecode(session, kvLayoutOf(config), reference.prompt, reference.tokens.length);
    const firstDiverged = run.tokens.findIndex((token, i) => token !== reference.tokens[i]);
    let logitsNote = '';
    if (reference.firstLogits) {
      const first = run.lastLogits[0]!;
      const maxDiff = reference.firstLogits.reduce(
        (worst, v, i) => Math.max(worst, Math.abs(v - first[i]!)),
        0,
      );
      logitsNote = `, first-step logits max |diff| ${maxDiff.toExponential(2)}`;
    }
    const verdict = firstDiverged < 0 ? 'match' : `MISMATCH from token ${firstDiverged}`;
    console.log(
      `case ${index}: prompt ${reference.prompt.length} ids, ${reference.tokens.length} greedy tokens: ${verdict}${logitsNote}`,
    );
    if (firstDiverged >= 0) {
      numMismatches += 1;
      console.log(`  torch ${JSON.stringify(reference.tokens)}\n  ort   ${JSON.stringify(run.tokens)}`);
    }
  }
  await session.release();
  console.log(numMismatches === 0 ? 'all cases match torch' : `${numMismatches} case(s) differ from torch`);
  process.exitCode = numMismatches === 0 ? 0 : 1;
}

await main();
