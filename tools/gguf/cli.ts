// `npx tsx tools/gguf/cli.ts --model DIR --type f16|q8_0|q4_0 [--out FILE]`: converts a model
// folder's onnx/model.onnx (written by tools/onnx-llama) to a llama-arch GGUF for llama.cpp.
// `npx tsx tools/gguf/cli.ts random --shape NAME --type TYPE --out FILE`: random weights at a real
// model's shape (random-shapes.ts), written f16 tensor by tensor, then quantized by llama.cpp's
// own quantizer (llama_model_quantize, `npm run peers:install`) to any type it makes.
// `npx tsx tools/gguf/cli.ts bytes --gguf FILE --onnx CONVERTED/onnx/model.onnx`: where the bytes
// of a GGUF and of its converted graph go, kind by kind (byte-table.ts).
// `npx tsx tools/gguf/cli.ts session-profile --gguf FILE | --graph FILE`: a converted graph's
// session build split, beside ONNX Runtime's alternatives (session-profile.ts).

import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { LLAMA_FTYPES, loadLlamaFfi } from '../../bench/peers/llama-ffi';
import type { LlamaFtypeName } from '../../bench/peers/llama-ffi';
import { convertedByteTable, ggufByteTable, totalOf } from './byte-table';
import type { ByteRow } from './byte-table';
import { convertFolderToGguf } from './convert';
import { inspectGguf } from '../../src-main/runtime/model/gguf/gguf-model';
import type { GgufWeightType } from './llama-tensors';
import { writeRandomGguf } from './random-model';
import { RANDOM_SHAPES } from './random-shapes';
import { sessionProfile } from './session-profile';
import type { RandomShapeName } from './random-shapes';

const TYPES: readonly GgufWeightType[] = ['f16', 'q8_0', 'q4_0'];

function convert(argv: string[]): number {
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

/** Rows as `kind  MB  share`, with the total. */
function printTable(title: string, rows: ByteRow[]): void {
  const total = totalOf(rows);
  console.log(`${title}: ${(total / 1e6).toFixed(1)} MB`);
  for (const row of rows)
    console.log(
      `  ${row.kind.padEnd(42)} ${(row.numBytes / 1e6).toFixed(1).padStart(9)} MB ${((row.numBytes / total) * 100).toFixed(1).padStart(5)} %`,
    );
}

/** `bytes`: the GGUF's bytes per ggml type beside its converted graph's per kind, and the ratio. */
function bytes(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: { gguf: { type: 'string' }, onnx: { type: 'string' } },
  });
  if (!values.gguf || !values.onnx) {
    console.error('usage: cli.ts bytes --gguf FILE --onnx CONVERTED/onnx/model.onnx');
    return 2;
  }
  const gguf = ggufByteTable(values.gguf, inspectGguf(values.gguf).set.tensors.values());
  const converted = convertedByteTable(values.onnx);
  printTable('GGUF', gguf);
  printTable('converted graph', converted);
  console.log(`converted / GGUF: ${(totalOf(converted) / totalOf(gguf)).toFixed(3)}`);
  return 0;
}

/** `random`: the f16 file first (beside the output, removed after), then llama.cpp's quantizer. */
function random(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      shape: { type: 'string' },
      type: { type: 'string', default: 'q4_k_m' },
      out: { type: 'string' },
      threads: { type: 'string', default: '2' },
    },
  });
  const shapes = Object.keys(RANDOM_SHAPES);
  const types = Object.keys(LLAMA_FTYPES);
  const type = values.type as LlamaFtypeName;
  if (!values.shape || !shapes.includes(values.shape) || !types.includes(type) || !values.out) {
    console.error(`usage: cli.ts random --shape ${shapes.join('|')} --type ${types.join('|')} --out FILE`);
    return 2;
  }
  mkdirSync(dirname(values.out), { recursive: true });
  const f16Path = type === 'f16' ? `${values.out}.partial` : `${values.out}.f16.partial`;
  let startMs = performance.now();
  const f16Bytes = writeRandomGguf(RANDOM_SHAPES[values.shape as RandomShapeName], values.shape, f16Path);
  console.log(
    `wrote f16 (${(f16Bytes / 1e6).toFixed(0)} MB) in ${(performance.now() - startMs).toFixed(0)} ms`,
  );
  if (type !== 'f16') {
    const ffi = loadLlamaFfi();
    if ('error' in ffi) {
      rmSync(f16Path, { force: true });
      console.error(ffi.error);
      return 1;
    }
    startMs = performance.now();
    try {
      ffi.quantizeModel(f16Path, `${values.out}.partial`, type, Number(values.threads));
    } finally {
      rmSync(f16Path, { force: true });
    }
    console.log(`quantized to ${type} in ${(performance.now() - startMs).toFixed(0)} ms`);
  }
  renameSync(`${values.out}.partial`, values.out);
  console.log(`wrote ${values.out}`);
  return 0;
}

const COMMANDS: Record<string, (argv: string[]) => number> = {
  random,
  bytes,
  'session-profile': sessionProfile,
};
const command = COMMANDS[process.argv[2] ?? ''];
process.exitCode = command ? command(process.argv.slice(3)) : convert(process.argv.slice(2));
