// `npx tsx tools/gguf/cli.ts --model DIR --type f16|q8_0|q4_0 [--out FILE]`: converts a model
// folder's onnx/model.onnx (written by tools/onnx-llama) to a llama-arch GGUF for llama.cpp.

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { convertFolderToGguf } from './convert';
import type { GgufWeightType } from './llama-tensors';

const TYPES: readonly GgufWeightType[] = ['f16', 'q8_0', 'q4_0'];

function main(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: { model: { type: 'string' }, type: { type: 'string', default: 'f16' }, out: { type: 'string' } },
  });
  const type = values.type as GgufWeightType;
  if (!values.model || !TYPES.includes(type)) {
    console.error('usage: cli.ts --model DIR --type f16|q8_0|q4_0 [--out FILE]');
    return 2;
  }
  const outPath = values.out ?? join(values.model, 'gguf', `model-${type}.gguf`);
  mkdirSync(dirname(outPath), { recursive: true });
  const result = convertFolderToGguf({ modelDir: values.model, type, outPath });
  const phases = Object.entries(result.timingsMs).map(([phase, ms]) => `${phase} ${ms.toFixed(0)} ms`);
  console.log(`wrote ${result.outPath} (${(result.numBytes / 1e6).toFixed(2)} MB; ${phases.join(', ')})`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
