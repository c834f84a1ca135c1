import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../../src-main/runtime/model';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph';
import type { DecoderWeightSet, MatrixWeight } from '../../../src-main/runtime/model/fused-graph';
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
  const prompt = ids.slice(0, 512);
  const engine = llamaCppForSuite();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);

  /** Ours and llama.cpp's teacher-forced greedy ids over the prompt, and 16 free-running ids from its start. */
  async function run(gguf: string, set: DecoderWeightSet) {
    const ours: ort.InferenceSession = await openFused(writeFusedDecoder(set));
    const vocab = { numUsable: set.dims.vocabSize, numLogits: set.dims.vocabSize };
    const theirs = await engine().open(gguf, 1, PHI3_CONTEXT, vocab);
    try {
      const forced = agreement(
        await fusedTeacherForced(ours, set.dims, prompt),
        await theirs.teacherForced(prompt),
      );
      const start = prompt.slice(0, 32);
      const mine = await fusedGreedy(ours, set.dims, start, 16);
      const reference = [(await theirs.prefill(start, false)).nextId];
      while (reference.length < 16) reference.push((await theirs.step(reference.at(-1)!, false)).nextId);
      return { forced, mine, reference };
    } finally {
      await ours.release();
      await theirs.close();
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
    const result = await run(gguf, set);
    console.log(`phi3 f16: teacher-forced agreement ${result.forced.toFixed(4)}`);
    expect(result.mine).toEqual(result.reference);
    expect(result.forced).toBeGreaterThanOrEqual(0.99);
    const plain = await run(gguf, { ...set, dims: { ...set.dims, ropeScaling: null } });
    console.log(`phi3 f16 without LongRoPE: agreement ${plain.forced.toFixed(4)}`);
    expect(plain.forced).toBeLessThan(0.9);
    const scaling = { ...set.dims.ropeScaling!, attentionFactor: 1 };
    const unscaled = await run(gguf, { ...set, dims: { ...set.dims, ropeScaling: scaling } });
    console.log(`phi3 f16 without the attention factor: agreement ${unscaled.forced.toFixed(4)}`);
    expect(unscaled.forced).toBeLessThan(0.9);
  }, 120_000);

  it('f16 at its original context: the short factors are taken, as llama.cpp takes them', async () => {
    const spec = { isQkvStacked: true, originalContext: PHI3_CONTEXT, attentionFactor: 1.4 };
    const gguf = phi3Gguf({ outPath: file('phi3-short.gguf'), ...spec });
    const model = inspectGguf(gguf);
    expect(model.dims.ropeScaling).toMatchObject({ tensor: 'rope_factors_short.weight' });
    const result = await run(gguf, ggufWeightSet(model));
    console.log(`phi3 f16 short factors: teacher-forced agreement ${result.forced.toFixed(4)}`);
    expect(result.mine).toEqual(result.reference);
    expect(result.forced).toBeGreaterThanOrEqual(0.99);
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
    const { forced } = await run(quantized, ggufWeightSet(model));
    console.log(`phi3 q4_k_m: teacher-forced agreement ${forced.toFixed(4)}`);
    expect(forced).toBeGreaterThanOrEqual(0.98);
  }, 120_000);
});
