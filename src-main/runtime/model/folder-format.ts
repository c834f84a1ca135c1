// What a folder without config.json or genai_config.json holds, named for the user: GGUF files,
// PyTorch or safetensors weights, or nothing First Frame recognises. A wrong guess
// ("config.json: missing" for a GGUF folder) sends the user looking for the wrong file.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ggufListingProblem } from './gguf/gguf-listing';
import { isLaterShard } from './gguf/gguf-files';

/** The file at fault and the problem, or null when the folder holds nothing to name. */
export function unknownFormatReason(folder: string): { file: string; problem: string } | null {
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch {
    return null; // unreadable: the config.json read that follows reports why
  }
  const gguf = names.find((n) => n.toLowerCase().endsWith('.gguf') && !isLaterShard(n));
  if (gguf) return { file: gguf, problem: ggufListingProblem(path.join(folder, gguf)) };
  const weights = names.find((n) => /\.(safetensors|bin|pt|pth)$/i.test(n));
  if (weights)
    return {
      file: weights,
      problem:
        'holds PyTorch/safetensors weights, with no ONNX model and no config.json: First Frame runs Hugging Face ONNX folders, onnxruntime-genai folders (genai_config.json) and GGUF files; export it with `optimum-cli export onnx` or the onnxruntime-genai model builder',
    };
  return null;
}
