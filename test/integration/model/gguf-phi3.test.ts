import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../../src-main/runtime/model/load-folder';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type { DecoderWeightSet, MatrixWeight } from '../../../src-main/runtime/model/fused-graph/weight-set';
import { inspectGguf } from '../../../src-main/runtime/model/gguf/gguf-model';
import { ggufWeightSet } from '../../../src-main/runtime/model/gguf/gguf-weight-set';
import { AUSTEN_TEXT } from '../../support/austen-text';
import { agreement, fusedGreedy, fusedTeacherForced, openFused } from '../../support/fused-oracle';
import { llamaCppForSuite, llamaFfi, peersSkipReason } from '../../support/llama-peers';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { PHI3_CONTEXT, phi3Gguf } from '../../support/phi3-gguf';

// Small phi3 GGUFs (stacked q/k/v and gate/up, LongRoPE factors and attention factor) converted
// by First Frame and run by llama.cpp from the same file at the same context: random weights at
// f16, the bundled model's trained weights for llama.cpp's 4-bit quantizer (a random model's
// near-tied logits flip under 4-bit noise: there llama.cpp's own q4_k_m agrees with its f16 on
// about a fifth of positions).

/** LongRoPE's original context below the test context, so both sides take the long factors. */
const LONG = { originalContext: PHI3_CONTEXT / 2, attentionFactor: 1.4 };

describe.skipIf(peersSkipReason !== null)('phi3 GGUFs converted to the fused graph', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-phi3-'));
  const ids = loadModelFolder(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID)).tokenizer.encode(AUSTEN_TEXT);
  /** Enough positions to tell 1 % apart at f16; the 4-bit bound is measured over 512. */
  const prompt = ids.slice(0, 256);
  const engine = llamaCppForSuite();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);

  /** llama.cpp's teacher-forced greedy ids over `prompt` and (`numFree` > 0) its free-running ids from the prompt's first 32. */
  async function llamaCppIds(gguf: string, prompt: number[], vocabSize: number, numFree = 0) {
    const theirs = await engine().open(gguf, 1, PHI3_CONTEXT, { numUsable: vocabSize, numLogits: vocabSize });
    try {
      const forced = await theirs.teacherForced(prompt);
      const free: number[] = [];
      if (numFree > 0) free.push((await theirs.prefill(prompt.slice(0, 32), false)).nextId);
      while (free.length < numFree) free.push((await theirs.step(free.at(-1)!, false)).nextId);
      return { forced, free };
    } finally {
      await theirs.close();
    }
  }

  /** Ours, the same way, from the weight set's fused graph. */
  async function firstFrameIds(set: DecoderWeightSet, prompt: number[], numFree = 0) {
    const ours: ort.InferenceSession = await openFused(writeFusedDecoder(set));
    try {
      const forced = await fusedTeacherForced(ours, set.dims, prompt);
      const free = numFree > 0 ? await fusedGreedy(ours, set.dims, prompt.slice(0, 32), numFree) : [];
      return { forced, free };
    } finally {
      await ours.release();
    }
  }

  it('f16 with LongRoPE: the long factors and attention factor are read, and greedy ids equal llama.cpp’s (and differ without them)', async () => {
    const gguf = phi3Gguf({ outPath: file('phi3-f16.gguf'), isQkvStacked: true, ...LONG });
    const model = inspectGguf(gguf);
    expect(model.layout).toEqual({ isQkvStacked: true, isGateUpStacked: true });
    expect(model.dims.ropeScaling).toEqual({
      type: 'frequency-factors',
      tensor: 'rope_factors_long.weight',
      attentionFactor: expect.closeTo(1.4, 6),
    });
    const set = ggufWeightSet(model);
    const theirs = await llamaCppIds(gguf, prompt, set.dims.vocabSize, 16);
    const ours = await firstFrameIds(set, prompt, 16);
    const forced = agreement(ours.forced, theirs.forced);
    console.log(`phi3 f16: teacher-forced agreement ${forced.toFixed(4)}`);
    expect(ours.free).toEqual(theirs.free);
    expect(forced).toBeGreaterThanOrEqual(0.99);
    const plain = await firstFrameIds({ ...set, dims: { ...set.dims, ropeScaling: null } }, prompt);
    const scaling = { ...set.dims.ropeScaling!, attentionFactor: 1 };
    const unscaled = await firstFrameIds({ ...set, dims: { ...set.dims, ropeScaling: scaling } }, prompt);
    const [withoutRope, withoutFactor] = [plain, unscaled].map((o) => agreement(o.forced, theirs.forced));
    console.log(
      `phi3 f16 without LongRoPE ${withoutRope!.toFixed(4)}, without its attention factor ${withoutFactor!.toFixed(4)}`,
    );
    expect(withoutRope).toBeLessThan(0.9);
    expect(withoutFactor).toBeLessThan(0.9);
  }, 120_000);

  it('f16 at its original context: the short factors are taken, as llama.cpp takes them', async () => {
    const spec = { isQkvStacked: true, originalContext: PHI3_CONTEXT, attentionFactor: 1.4 };
    const gguf = phi3Gguf({ outPath: file('phi3-short.gguf'), ...spec });
    const model = inspectGguf(gguf);
    expect(model.dims.ropeScaling).toMatchObject({ tensor: 'rope_factors_short.weight' });
    const set = ggufWeightSet(model);
    const theirs = await llamaCppIds(gguf, prompt, set.dims.vocabSize);
    const forced = agreement((await firstFrameIds(set, prompt)).forced, theirs.forced);
    console.log(`phi3 f16 short factors: teacher-forced agreement ${forced.toFixed(4)}`);
    expect(forced).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it('q/k/v stored apart convert to the same weights as q/k/v stacked in attn_qkv', () => {
    const stacked = ggufWeightSet(
      inspectGguf(phi3Gguf({ outPath: file('a.gguf'), isQkvStacked: true, ...LONG })),
    );
    const model = inspectGguf(phi3Gguf({ outPath: file('b.gguf'), isQkvStacked: false, ...LONG }));
    expect(model.layout.isQkvStacked).toBe(false);
    const apart = ggufWeightSet(model);
    const bytesOf = ({ data }: MatrixWeight) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (const [i, layer] of apart.layers.entries())
      for (const part of ['q', 'k', 'v', 'gate', 'up'] as const) {
        expect(layer[part].kind).toBe('float');
        expect(bytesOf(layer[part]).equals(bytesOf(stacked.layers[i]![part]))).toBe(true);
      }
  });

  it('q4_k_m made by llama.cpp’s quantizer (trained weights): teacher-forced greedy ids agree on ≥ 0.98 of positions', async () => {
    const spec = { isQkvStacked: true, originalContext: PHI3_CONTEXT / 2, attentionFactor: 1.19 };
    const f16 = phi3Gguf({ outPath: file('phi3-q-source.gguf'), weights: 'bundled', ...spec });
    const quantized = file('phi3-q4_k_m.gguf');
    llamaFfi!.quantizeModel(f16, quantized, 'q4_k_m');
    const model = inspectGguf(quantized);
    expect(model.fileType).toBe('q4_k_m');
    console.log(
      `phi3 q4_k_m tensor types: ${[...model.plan.typeCounts].map(([t, n]) => `${t} ×${n}`).join(', ')}`,
    );
    const set = ggufWeightSet(model);
    const long = ids.slice(0, 512);
    const theirs = await llamaCppIds(quantized, long, set.dims.vocabSize);
    const forced = agreement((await firstFrameIds(set, long)).forced, theirs.forced);
    console.log(`phi3 q4_k_m: teacher-forced agreement ${forced.toFixed(4)}`);
    expect(forced).toBeGreaterThanOrEqual(0.98);
  }, 120_000);
});
