import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../../src-main/runtime/model/load-folder';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type { DecoderDims, DecoderWeightSet } from '../../../src-main/runtime/model/fused-graph/weight-set';
import type { GemmaDims } from '../../../src-main/runtime/model/fused-graph/gemma';
import { convertGguf, CONVERTED_FILES } from '../../../src-main/runtime/model/gguf/gguf-convert';
import { inspectGguf } from '../../../src-main/runtime/model/gguf/gguf-model';
import { ggufWeightSet } from '../../../src-main/runtime/model/gguf/gguf-weight-set';
import { AUSTEN_TEXT } from '../../support/austen-text';
import { agreement, fusedGreedy, fusedTeacherForced, openFused } from '../../support/fused-oracle';
import { GEMMA_FIXTURE_WINDOW, gemmaGguf } from '../../support/gguf-fixtures';
import { llamaCppForSuite, llamaFfi, peersSkipReason } from '../../support/llama-peers';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

// Gemma 2 and Gemma 3 GGUFs of the bundled model's weights with Gemma's additions (gemmaGguf:
// post norms, q/k norms, soft-caps, a 32-token sliding window, per-kind RoPE), converted by First
// Frame and run by llama.cpp from the same file, compared on token ids over a 512-token prompt.

const PROMPT_LENGTH = 512;
const NUM_GREEDY = 16;

/** Each layer's kind as llama.cpp's loaders set it: Gemma 2 alternates, Gemma 3 slides 5 in 6. */
const EXPECTED_LAYERS: Record<'gemma2' | 'gemma3', GemmaDims['layerAttention']> = {
  gemma2: ['sliding', 'global', 'sliding', 'global', 'sliding', 'global'],
  gemma3: ['sliding', 'sliding', 'sliding', 'sliding', 'sliding', 'global'],
};

/** What a converter that forgot one of Gemma's differences would compute instead. */
const OMISSIONS: Record<'gemma2' | 'gemma3', Array<[string, Partial<GemmaDims>]>> = {
  gemma2: [
    ['the sliding window', { layerAttention: EXPECTED_LAYERS.gemma2.map(() => 'global') }],
    ['the attention soft-cap', { attentionSoftcap: null }],
  ],
  gemma3: [
    ['the sliding window', { layerAttention: EXPECTED_LAYERS.gemma3.map(() => 'global') }],
    ['the sliding layers’ own RoPE', { slidingRopeTheta: null }],
  ],
};

describe.skipIf(peersSkipReason !== null)('gemma2 and gemma3 GGUFs converted to the fused graph', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-gemma-'));
  const bundled = loadModelFolder(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID));
  const prompt = bundled.tokenizer.encode(AUSTEN_TEXT).slice(0, PROMPT_LENGTH);
  const start = prompt.slice(0, 48);
  const engine = llamaCppForSuite();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** llama.cpp's teacher-forced ids over the prompt and its greedy ids after `start`. */
  async function theirIds(file: string, dims: DecoderDims) {
    const vocab = { numUsable: dims.vocabSize, numLogits: dims.vocabSize };
    const model = await engine().open(file, 1, 2048, vocab);
    try {
      const forced = await model.teacherForced(prompt);
      const greedy = [(await model.prefill(start, false)).nextId];
      while (greedy.length < NUM_GREEDY) greedy.push((await model.step(greedy.at(-1)!, false)).nextId);
      return { forced, greedy };
    } finally {
      await model.close();
    }
  }

  /** Our teacher-forced ids over the prompt and greedy ids after `start`, from a fused graph (bytes or file). */
  async function ourIds(graph: Uint8Array | string, dims: DecoderDims) {
    const session =
      typeof graph === 'string'
        ? await ort.InferenceSession.create(graph, { intraOpNumThreads: 1, interOpNumThreads: 1 })
        : await openFused(graph);
    try {
      const forced = await fusedTeacherForced(session, dims, prompt);
      return { forced, greedy: await fusedGreedy(session, dims, start, NUM_GREEDY) };
    } finally {
      await session.release();
    }
  }

  /** Our ids from the fused graph of `set`, written in memory. */
  const idsOf = (set: DecoderWeightSet) => ourIds(writeFusedDecoder(set), set.dims);

  const withGemma = (set: DecoderWeightSet, change: Partial<GemmaDims>): DecoderWeightSet => ({
    ...set,
    dims: { ...set.dims, gemma: { ...set.dims.gemma!, ...change } },
  });

  it.each(['gemma2', 'gemma3'] as const)(
    '%s f16 converted into a model folder: each layer’s kind is llama.cpp’s, and greedy ids equal llama.cpp’s (and differ without each of Gemma’s differences)',
    async (architecture) => {
      const file = gemmaGguf(architecture, dir);
      const model = inspectGguf(file);
      expect(model.architecture).toBe(architecture);
      expect(model.dims.gemma?.layerAttention).toEqual(EXPECTED_LAYERS[architecture]);
      expect(model.dims.gemma?.slidingWindow).toBe(GEMMA_FIXTURE_WINDOW);
      const set = ggufWeightSet(model);
      expect(set.layers.every((layer) => layer.outputNorms)).toBe(true);
      expect(set.layers.every((layer) => Boolean(layer.qkNorm) === (architecture === 'gemma3'))).toBe(true);
      const converted = path.join(dir, `${architecture}-converted`);
      convertGguf(file, converted);
      // The folder loads like any model; its tokenizer (rebuilt from the file) spells the ids alike.
      expect(loadModelFolder(converted).tokenizer.decode(prompt)).toBe(bundled.tokenizer.decode(prompt));
      const theirs = await theirIds(file, set.dims);
      const ours = await ourIds(path.join(converted, CONVERTED_FILES.graph), set.dims);
      const forced = agreement(ours.forced, theirs.forced);
      console.log(`${architecture} f16: teacher-forced agreement ${forced.toFixed(4)}`);
      expect(ours.greedy).toEqual(theirs.greedy);
      expect(forced).toBeGreaterThanOrEqual(0.99);
      for (const [omitted, change] of OMISSIONS[architecture]) {
        const without = agreement((await idsOf(withGemma(set, change))).forced, theirs.forced);
        console.log(`${architecture} f16 without ${omitted}: agreement ${without.toFixed(4)}`);
        expect(without).toBeLessThan(0.9);
      }
    },
    120_000,
  );

  it.each(['gemma2', 'gemma3'] as const)(
    '%s q4_k_m made by llama.cpp’s quantizer: teacher-forced greedy ids agree on ≥ 0.98 of positions',
    async (architecture) => {
      const quantized = path.join(dir, `${architecture}-q4_k_m.gguf`);
      llamaFfi!.quantizeModel(gemmaGguf(architecture, dir), quantized, 'q4_k_m');
      const model = inspectGguf(quantized);
      expect(model.fileType).toBe('q4_k_m');
      const set = ggufWeightSet(model);
      const forced = agreement((await idsOf(set)).forced, (await theirIds(quantized, set.dims)).forced);
      console.log(`${architecture} q4_k_m: teacher-forced agreement ${forced.toFixed(4)}`);
      expect(forced).toBeGreaterThanOrEqual(0.98);
    },
    120_000,
  );
});
