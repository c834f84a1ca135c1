import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../../src-main/runtime/model/load-folder';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type { DecoderWeightSet } from '../../../src-main/runtime/model/fused-graph/weight-set';
import { inspectGguf } from '../../../src-main/runtime/model/gguf/gguf-model';
import { ggufWeightSet } from '../../../src-main/runtime/model/gguf/gguf-weight-set';
import { AUSTEN_TEXT } from '../../support/austen-text';
import { agreement, fusedGreedy, fusedTeacherForced, openFused } from '../../support/fused-oracle';
import { qwenGguf } from '../../support/gguf-fixtures';
import { llamaCppForSuite, llamaFfi, peersSkipReason } from '../../support/llama-peers';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

// Qwen2 (q/k/v biases) and Qwen3 (per-head q/k norms before RoPE) GGUFs of the bundled model's
// weights with those extras added, converted by First Frame and run by llama.cpp from the same file.

const ARCHITECTURES = [
  ['qwen2', 'qkvBias'],
  ['qwen3', 'qkNorm'],
] as const;

describe.skipIf(peersSkipReason !== null)('qwen2 and qwen3 GGUFs converted to the fused graph', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-qwen-'));
  const ids = loadModelFolder(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID)).tokenizer.encode(AUSTEN_TEXT);
  const engine = llamaCppForSuite();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Ours and llama.cpp's teacher-forced greedy ids over `prompt`, and free-running from its start. */
  async function run(file: string, set: DecoderWeightSet, prompt: number[]) {
    const ours: ort.InferenceSession = await openFused(writeFusedDecoder(set));
    const vocab = { numUsable: set.dims.vocabSize, numLogits: set.dims.vocabSize };
    const theirs = await engine().open(file, 1, 2048, vocab);
    try {
      const forced = agreement(
        await fusedTeacherForced(ours, set.dims, prompt),
        await theirs.teacherForced(prompt),
      );
      const start = prompt.slice(0, 48);
      const mine = await fusedGreedy(ours, set.dims, start, 24);
      const reference = [(await theirs.prefill(start, false)).nextId];
      while (reference.length < 24) reference.push((await theirs.step(reference.at(-1)!, false)).nextId);
      return { forced, mine, reference };
    } finally {
      await ours.release();
      await theirs.close();
    }
  }

  it.each(ARCHITECTURES)(
    '%s f16: the extras are read, and teacher-forced and free-running greedy ids equal llama.cpp’s (and differ without the extras)',
    async (architecture, extra) => {
      const file = qwenGguf(architecture, dir);
      const model = inspectGguf(file);
      expect(model.architecture).toBe(architecture);
      const set = ggufWeightSet(model);
      expect(set.layers.every((layer) => layer[extra])).toBe(true);
      const prompt = ids.slice(0, 512);
      const withExtras = await run(file, set, prompt);
      console.log(`${architecture} f16: teacher-forced agreement ${withExtras.forced.toFixed(4)}`);
      expect(withExtras.forced).toBeGreaterThanOrEqual(0.99);
      expect(withExtras.mine).toEqual(withExtras.reference);
      const without = { ...set, layers: set.layers.map((layer) => ({ ...layer, [extra]: null })) };
      const missing = await run(file, without, prompt);
      console.log(`${architecture} f16 without its ${extra}: agreement ${missing.forced.toFixed(4)}`);
      expect(missing.forced).toBeLessThan(0.9);
    },
    180_000,
  );

  it.each(ARCHITECTURES)(
    '%s q4_k_m made by llama.cpp’s quantizer: teacher-forced greedy ids agree on ≥ 0.97 of positions',
    async (architecture) => {
      const quantized = path.join(dir, `${architecture}-q4_k_m.gguf`);
      llamaFfi!.quantizeModel(qwenGguf(architecture, dir), quantized, 'q4_k_m');
      const model = inspectGguf(quantized);
      expect(model.fileType).toBe('q4_k_m');
      const { forced } = await run(quantized, ggufWeightSet(model), ids.slice(0, 512));
      console.log(`${architecture} q4_k_m: teacher-forced agreement ${forced.toFixed(4)}`);
      expect(forced).toBeGreaterThanOrEqual(0.97);
    },
    180_000,
  );
});
