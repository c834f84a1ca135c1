// Command line: `npx tsx tools/onnx-llama/cli.ts from-safetensors|random|quantize|layout ...`.
// Writes a Hugging Face ONNX model folder and prints its files, size,
// parameter count and timings. See README.md for the options.

import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LlamaShape } from './config';
import {
  convertModelForm,
  convertSafetensors,
  DEFAULT_GRAPH_FORM,
  RANDOM_PRESETS,
  writeRandomModel,
  type GraphForm,
  type ModelJobResult,
} from './model-jobs';
import type { WeightDtype } from './weight-initializers';
import { QUANTIZE_DEFAULTS, quantizeModelFolder, type QuantizeResult } from './quantize/quantize-model';
import type { QuantScheme } from '../../src-main/runtime/model/fused-graph/block-quantize';
import { LAYOUTS, writeLayoutModel, type LayoutName } from './layouts';

const USAGE = `usage:
  cli.ts from-safetensors --weights F --config C [--out DIR] [--dtype float16|float32] [--tokenizer-from DIR] [--form fused|naive]
  cli.ts random --preset 100m|tiny [--seed S] [--dtype ...] [--out DIR] [--tokenizer-from DIR] [--form ...]
  cli.ts random --layers N --hidden H --heads NH --kv-heads NKV --intermediate I --vocab V --max-positions P [...]
  cli.ts layout --layout NAME [--out DIR] [--seed S] [--twin] [--tokenizer-from DIR] [--form ...]   (NAME: ${Object.keys(LAYOUTS).join(', ')})
  cli.ts convert --model DIR --form fused|naive [--dtype float16|float32]   (rewrites onnx/model.onnx in that form, same weights)
  cli.ts quantize --model DIR --bits 4|8 [--block-size 32] [--accuracy-level 4] [--scheme symmetric|asymmetric] [--keep-embeddings] [--form ...]
Default --out: .cache/models/<name>; default --dtype: float16 for random, float32 for from-safetensors;
default --form: ${DEFAULT_GRAPH_FORM} (fused: GroupQueryAttention and packed projections; naive: the
transformers.js-compatible graph; layout's --form fused writes the layout's weights as a fused onnx/model.onnx).`;

const OPTIONS = {
  weights: { type: 'string' },
  config: { type: 'string' },
  out: { type: 'string' },
  dtype: { type: 'string' },
  'tokenizer-from': { type: 'string' },
  preset: { type: 'string' },
  seed: { type: 'string' },
  layers: { type: 'string' },
  hidden: { type: 'string' },
  heads: { type: 'string' },
  'kv-heads': { type: 'string' },
  intermediate: { type: 'string' },
  vocab: { type: 'string' },
  'max-positions': { type: 'string' },
  model: { type: 'string' },
  bits: { type: 'string' },
  'block-size': { type: 'string' },
  'accuracy-level': { type: 'string' },
  scheme: { type: 'string' },
  'keep-embeddings': { type: 'boolean' },
  layout: { type: 'string' },
  twin: { type: 'boolean' },
  form: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function intOption(values: Values, key: keyof typeof OPTIONS): number {
  const text = values[key];
  const value = Number(text);
  if (text === undefined || !Number.isInteger(value) || value <= 0)
    fail(`--${key} must be a positive integer`);
  return value;
}

function dtypeOption(values: Values, fallback: WeightDtype): WeightDtype {
  const dtype = values.dtype ?? fallback;
  if (dtype !== 'float16' && dtype !== 'float32') fail(`--dtype must be float16 or float32, got ${dtype}`);
  return dtype;
}

function formOption(values: Values): GraphForm {
  const form = values.form ?? DEFAULT_GRAPH_FORM;
  if (form !== 'fused' && form !== 'naive') fail(`--form must be fused or naive, got ${form}`);
  return form;
}

function randomShape(values: Values): { name: string; shape: LlamaShape } {
  if (values.preset) {
    const shape = RANDOM_PRESETS[values.preset];
    if (!shape) fail(`unknown preset ${values.preset}; known: ${Object.keys(RANDOM_PRESETS).join(', ')}`);
    return { name: `random-${values.preset}`, shape };
  }
  const shape: LlamaShape = {
    numLayers: intOption(values, 'layers'),
    hiddenSize: intOption(values, 'hidden'),
    numHeads: intOption(values, 'heads'),
    numKvHeads: intOption(values, 'kv-heads'),
    intermediateSize: intOption(values, 'intermediate'),
    vocabSize: intOption(values, 'vocab'),
    maxPositions: intOption(values, 'max-positions'),
  };
  const name = `random-L${shape.numLayers}-H${shape.hiddenSize}-NH${shape.numHeads}-KV${shape.numKvHeads}-I${shape.intermediateSize}-V${shape.vocabSize}`;
  return { name, shape };
}

function printResult(result: ModelJobResult): void {
  const totalBytes = result.files.reduce((sum, f) => sum + f.numBytes, 0);
  console.log(`wrote ${result.outDir}`);
  for (const file of result.files)
    console.log(`  ${file.path.padEnd(26)} ${(file.numBytes / 1e6).toFixed(2).padStart(10)} MB`);
  console.log(
    `  total ${(totalBytes / 1e6).toFixed(2)} MB, ${(result.numParameters / 1e6).toFixed(2)}M parameters`,
  );
  const phases = Object.entries(result.timingsMs).map(([phase, ms]) => `${phase} ${ms.toFixed(0)} ms`);
  console.log(`  timings: ${phases.join(', ')}`);
}

function printQuantized(result: QuantizeResult): void {
  console.log(`quantized ${result.source} (${(result.sourceBytes / 1e6).toFixed(2)} MB)`);
  for (const file of result.files)
    console.log(`  ${file.path.padEnd(26)} ${(file.numBytes / 1e6).toFixed(2).padStart(10)} MB`);
  const { numMatMuls, numGathers, skipped } = result.report;
  console.log(`  ${numMatMuls} MatMulNBits, ${numGathers} GatherBlockQuantized`);
  for (const { node, reason } of skipped) console.log(`  kept in float: ${node} (${reason})`);
  const phases = Object.entries(result.timingsMs).map(([phase, ms]) => `${phase} ${ms.toFixed(0)} ms`);
  console.log(`  timings: ${phases.join(', ')}`);
}

function quantize(values: Values): void {
  if (!values.model) fail('quantize needs --model DIR');
  const bits = Number(values.bits);
  if (bits !== 4 && bits !== 8) fail(`--bits must be 4 or 8, got ${values.bits ?? '(none)'}`);
  const scheme = (values.scheme ?? QUANTIZE_DEFAULTS.scheme) as QuantScheme;
  if (scheme !== 'symmetric' && scheme !== 'asymmetric')
    fail(`--scheme must be symmetric or asymmetric, got ${scheme}`);
  const accuracyLevel =
    values['accuracy-level'] === undefined
      ? QUANTIZE_DEFAULTS.accuracyLevel
      : Number(values['accuracy-level']);
  printQuantized(
    quantizeModelFolder({
      modelDir: values.model,
      bits,
      blockSize:
        values['block-size'] === undefined ? QUANTIZE_DEFAULTS.blockSize : intOption(values, 'block-size'),
      accuracyLevel,
      scheme,
      isQuantizingEmbeddings: !values['keep-embeddings'],
      form: formOption(values),
    }),
  );
}

function main(argv: string[]): void {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command] = positionals;
  const tokenizerFrom = values['tokenizer-from'];
  if (command === 'from-safetensors') {
    if (!values.weights || !values.config) fail('from-safetensors needs --weights and --config');
    const outDir =
      values.out ?? join('.cache', 'models', basename(values.weights).replace(/\.safetensors$/, ''));
    const weightDtype = dtypeOption(values, 'float32');
    printResult(
      convertSafetensors({
        weightsPath: values.weights,
        configPath: values.config,
        outDir,
        weightDtype,
        form: formOption(values),
        tokenizerFrom,
      }),
    );
  } else if (command === 'random') {
    const { name, shape } = randomShape(values);
    const weightDtype = dtypeOption(values, 'float16');
    const seed = values.seed === undefined ? 1 : intOption(values, 'seed');
    const outDir = values.out ?? join('.cache', 'models', `${name}-${weightDtype}-s${seed}`);
    printResult(
      writeRandomModel({ shape, seed, outDir, weightDtype, form: formOption(values), tokenizerFrom }),
    );
  } else if (command === 'quantize') {
    quantize(values);
  } else if (command === 'convert') {
    if (!values.model || !values.form) fail('convert needs --model DIR and --form fused|naive');
    const weightDtype = values.dtype === undefined ? undefined : dtypeOption(values, 'float32');
    printResult(convertModelForm({ modelDir: values.model, form: formOption(values), weightDtype }));
  } else if (command === 'layout') {
    const layout = values.layout as LayoutName;
    if (!(layout in LAYOUTS)) fail(`--layout must be one of ${Object.keys(LAYOUTS).join(', ')}`);
    const seed = values.seed === undefined ? 1 : intOption(values, 'seed');
    const outDir = values.out ?? join('.cache', 'models', `layout-${layout}${values.twin ? '-twin' : ''}`);
    const form = values.form === undefined ? 'naive' : formOption(values);
    const files = writeLayoutModel({ layout, outDir, seed, tokenizerFrom, isTwin: values.twin, form });
    console.log(
      `wrote ${outDir} (${layout}${values.twin ? ', plain twin' : ''}${form === 'fused' ? ', fused' : ''})`,
    );
    for (const file of files)
      console.log(`  ${file.path.padEnd(34)} ${(file.numBytes / 1e6).toFixed(2).padStart(8)} MB`);
  } else {
    fail(`unknown command ${command ?? '(none)'}`);
  }
}

main(process.argv.slice(2));
