import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeGguf } from '../../tools/gguf/gguf-file';

/** Entries in the huge metadata array (int32 each: 64 MB of header). */
export const HUGE_ARRAY_LENGTH = 16_000_000;
/** Characters of the long vocabulary token. */
export const LONG_TOKEN_CHARS = 100_000;

/** A GGUF (no tensors) whose header holds one int32 array of HUGE_ARRAY_LENGTH entries. */
export function writeHugeArrayGguf(modelsDir: string): string {
  const folder = path.join(modelsDir, 'huge-array');
  mkdirSync(folder, { recursive: true });
  writeGguf(
    path.join(folder, 'huge-array.gguf'),
    [
      ['general.architecture', { type: 'string', value: 'llama' }],
      ['tokenizer.ggml.token_type', { type: 'int32s', value: new Int32Array(HUGE_ARRAY_LENGTH).fill(1) }],
    ],
    [],
  );
  return folder;
}

/** A GGUF (no tensors) whose vocabulary holds one token of LONG_TOKEN_CHARS characters. */
export function writeLongTokenGguf(modelsDir: string): string {
  const folder = path.join(modelsDir, 'long-token');
  mkdirSync(folder, { recursive: true });
  writeGguf(
    path.join(folder, 'long-token.gguf'),
    [
      ['general.architecture', { type: 'string', value: 'llama' }],
      ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
      ['tokenizer.ggml.tokens', { type: 'strings', value: ['x'.repeat(LONG_TOKEN_CHARS), 'a', 'b'] }],
    ],
    [],
  );
  return folder;
}

/**
 * Loops a template runs within the render's limits (1,000,000 steps, 2 s): 400 × 50 empty
 * iterations before the bundled template's own text, a render many times the bundled one's.
 * (2,000 × 150 took over the 2 s on this machine, so the model was refused as broken.)
 */
const SLOW_LOOP = '{% for i in range(400) %}{% for j in range(50) %}{% endfor %}{% endfor %}';

/** A copy of `from` (an ONNX model folder) whose chat template renders slowly; its folder. */
export function writeSlowTemplateModel(modelsDir: string, from: string): string {
  const folder = path.join(modelsDir, 'slow-template');
  cpSync(from, folder, { recursive: true });
  const configPath = path.join(folder, 'tokenizer_config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { chat_template: string };
  config.chat_template = SLOW_LOOP + config.chat_template;
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return folder;
}
