// Which files of a repository run here, as the user picks them: each GGUF model file, a split
// set as one choice. A vision projector (`mmproj-…`) is no model on its own; other files
// (safetensors, ONNX, READMEs) are counted so the panel can say the repository holds more.

import path from 'node:path';
import { ggufModelName, isLaterShard, shardPathsOf } from '../../runtime/model/gguf/gguf-files';
import type { HubFile } from './hub-client';

/** One choice: its files in order (a split set's shards), the name it lists under, its quantization. */
export interface GgufChoice {
  filePath: string;
  files: HubFile[];
  modelName: string;
  quant: string | null;
  numBytes: number;
  hasSha256: boolean;
}

/** llama.cpp's quantization names as files carry them (`Q4_K_M`, `IQ3_XXS`, `Q8_0`, `F16`, `BF16`). */
const QUANT = /(?:^|[-_.])((?:I?Q\d(?:_[A-Z0-9]{1,4}){0,2})|BF16|F16|F32|FP16|FP32)$/i;

/** The GGUF choices of a repository's files (a set missing a shard is left out), and how many files are not. */
export function ggufChoicesOf(files: readonly HubFile[]): { choices: GgufChoice[]; numOtherFiles: number } {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const choices: GgufChoice[] = [];
  for (const file of files) {
    const base = path.posix.basename(file.path);
    if (!base.toLowerCase().endsWith('.gguf') || isLaterShard(base)) continue;
    if (base.toLowerCase().startsWith('mmproj')) continue;
    const shards = shardPathsOf(file.path).map((p) => byPath.get(p.split(path.sep).join('/')));
    if (shards.some((s) => s === undefined)) continue;
    const set = shards as HubFile[];
    const modelName = ggufModelName(base);
    choices.push({
      filePath: file.path,
      files: set,
      modelName,
      quant: QUANT.exec(modelName)?.[1]?.toUpperCase() ?? null,
      numBytes: set.reduce((sum, f) => sum + (f.numBytes ?? 0), 0),
      hasSha256: set.every((f) => f.sha256 !== null),
    });
  }
  const numInChoices = choices.reduce((sum, c) => sum + c.files.length, 0);
  return { choices, numOtherFiles: files.length - numInChoices };
}
