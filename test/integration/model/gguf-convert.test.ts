import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LlamaCppModel } from '../../../bench/peers/llama-cpp';
import type { LlamaFtypeName } from '../../../bench/peers/llama-ffi';
import { loadModelFolder } from '../../../src-main/runtime/model/load-folder';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type { DecoderWeightSet } from '../../../src-main/runtime/model/fused-graph/weight-set';
import { inspectGguf } from '../../../src-main/runtime/model/gguf/gguf-model';
import { ggufWeightSet } from '../../../src-main/runtime/model/gguf/gguf-weight-set';
import { convertedByteTable, totalOf } from '../../../tools/gguf/byte-table';
import { readOnnxLlamaWeights } from '../../../tools/onnx-llama/read-weights';
import { hfWeightsOf } from '../../../tools/onnx-llama/weight-set';
import type { LlamaConfig } from '../../../tools/onnx-llama/config';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as ort from 'onnxruntime-node';
import {
  convertedDirOf,
  convertGguf,
  CONVERTED_FILES,
  isConverted,
} from '../../../src-main/runtime/model/gguf/gguf-convert';
import { AUSTEN_TEXT } from '../../support/austen-text';
import { agreement, fusedGreedy, fusedTeacherForced, openFused } from '../../support/fused-oracle';
import { bundledGguf } from '../../support/gguf-fixtures';
import { llamaCppForSuite, peersSkipReason } from '../../support/llama-peers';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

const BUNDLED = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
/** Teacher-forced agreement each file type must reach with llama.cpp on the same file. */
const TARGETS: Array<[LlamaFtypeName, number]> = [
  ['f16', 0.99],
  ['q8_0', 0.99],
  ['q4_0', 0.99],
  // K-quants map exactly; what is left is how each side quantizes activations (ONNX Runtime int8
  // per block of 16/32, llama.cpp Q8_K per 256) on a small model's many near-ties: an ulp's
  // change moves a few ids either way (0.983–0.990 measured).
  ['q4_k_m', 0.98],
  ['q5_k_m', 0.98],
  ['q6_k', 0.97],
];

describe('a GGUF file converted to the fused graph', () => {
  const ids = loadModelFolder(BUNDLED).tokenizer.encode(AUSTEN_TEXT);

  it('reads the f16 file’s weights back exactly as the bundled model holds them (Q/K rows unpermuted)', () => {
    const config = JSON.parse(readFileSync(path.join(BUNDLED, 'config.json'), 'utf8')) as LlamaConfig;
    const original = readOnnxLlamaWeights(path.join(BUNDLED, 'onnx', 'model.onnx'), config);
    const converted = hfWeightsOf(ggufWeightSet(inspectGguf(bundledGguf('f16'))));
    expect([...converted.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [name, tensor] of original) {
      expect(converted.get(name)!.shape, name).toEqual(tensor.shape);
      expect(
        Buffer.from(converted.get(name)!.data.buffer).equals(Buffer.from(tensor.data.buffer)),
        name,
      ).toBe(true);
    }
  });

  it('reports bytes done after each tensor, ending at the total', () => {
    const seen: number[] = [];
    let total = 0;
    ggufWeightSet(inspectGguf(bundledGguf('f16')), (done, all) => {
      seen.push(done);
      total = all;
    });
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.every((done, i) => i === 0 || done > seen[i - 1]!)).toBe(true);
    expect(seen.at(-1)).toBe(total);
  });

  describe('into a model folder, once', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ff-gguf-convert-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('writes config, tokenizer and the graph with its data beside it, renamed into place whole; the GGUF untouched', async () => {
      const file = bundledGguf('q4_k_m');
      const before = { ...statSync(file) };
      const model = inspectGguf(file);
      const dir = convertedDirOf(root, model.set.identity);
      const progress: number[] = [];
      const record = convertGguf(file, dir, (done) => progress.push(done));
      expect(isConverted(dir)).toBe(true);
      expect(readdirSync(root)).toEqual([path.basename(dir)]);
      expect(readdirSync(dir).sort()).toEqual([
        'config.json',
        'conversion.json',
        'generation_config.json',
        'onnx',
        'tokenizer.json',
        'tokenizer_config.json',
      ]);
      expect(record).toMatchObject({
        fileType: 'q4_k_m',
        identity: model.set.identity,
        ggufBytes: before.size,
      });
      expect(progress.at(-1)).toBe([...model.set.tensors.values()].reduce((sum, t) => sum + t.numBytes, 0));
      // The listing's storage plan (codes, scale steps and factors, norms) is what the files hold,
      // but for the graph itself, small constants and each initializer's 4096-byte alignment.
      const planned = [...model.plan.bytesByKind.values()].reduce((sum, bytes) => sum + bytes, 0);
      const table = convertedByteTable(path.join(dir, 'onnx', 'model.onnx'));
      const written = record.onnxBytes + record.dataBytes;
      console.log(`q4_k_m: planned ${planned} bytes, written ${written}`, table);
      expect(totalOf(table)).toBe(written);
      const padding = table.find((row) => row.kind === 'data file alignment padding')!.numBytes;
      expect((written - padding) / planned).toBeGreaterThanOrEqual(1);
      expect((written - padding) / planned).toBeLessThan(1.03); // the graph file: ~85 KB of nodes here
      // Scales as GGUF stores them (int8 steps, fp16 factors): no float32 scales or offsets.
      expect(table.map((row) => row.kind)).not.toContain('scales fp32');
      expect(table.map((row) => row.kind)).not.toContain('block offsets fp32');
      const after = statSync(file);
      expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
      const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(config).toMatchObject({ num_hidden_layers: 6, head_dim: 32, tie_word_embeddings: true });
      const fromFiles = await ort.InferenceSession.create(path.join(dir, CONVERTED_FILES.graph));
      const inMemory = await openFused(writeFusedDecoder(ggufWeightSet(model)));
      const dims = ggufWeightSet(model).dims;
      expect(await fusedTeacherForced(fromFiles, dims, ids.slice(0, 64))).toEqual(
        await fusedTeacherForced(inMemory, dims, ids.slice(0, 64)),
      );
      await Promise.all([fromFiles.release(), inMemory.release()]);
    });

    it('leaves nothing behind when the file turns out truncated', () => {
      const cut = path.join(root, 'cut.gguf');
      copyFileSync(bundledGguf('f16'), cut);
      truncateSync(cut, statSync(cut).size - 4096);
      const dir = path.join(root, 'cut-converted');
      expect(() => convertGguf(cut, dir)).toThrow(/truncated|ends/);
      expect(readdirSync(root).filter((n) => n.startsWith('cut-converted'))).toEqual([]);
    });
  });

  describe.skipIf(peersSkipReason !== null)('agrees with llama.cpp on the same file', () => {
    const engine = llamaCppForSuite();

    async function both(
      type: LlamaFtypeName,
    ): Promise<{ set: DecoderWeightSet; ours: ort.InferenceSession; theirs: LlamaCppModel }> {
      const file = bundledGguf(type);
      const set = ggufWeightSet(inspectGguf(file));
      const ours = await openFused(writeFusedDecoder(set));
      const theirs = await engine().open(file, 1, 2048, {
        numUsable: set.dims.vocabSize,
        numLogits: set.dims.vocabSize,
      });
      return { set, ours, theirs };
    }

    it.each(TARGETS)(
      '%s: teacher-forced greedy ids agree on ≥ %f of positions',
      async (type, target) => {
        const { set, ours, theirs } = await both(type);
        try {
          const mine = await fusedTeacherForced(ours, set.dims, ids);
          const reference = await theirs.teacherForced(ids);
          const share = agreement(mine, reference);
          console.log(`${type}: teacher-forced agreement ${share.toFixed(4)} over ${ids.length} positions`);
          expect(share).toBeGreaterThanOrEqual(target);
        } finally {
          await ours.release();
          await theirs.close();
        }
      },
      120_000,
    );

    it('f16: free-running greedy ids equal llama.cpp’s', async () => {
      const { set, ours, theirs } = await both('f16');
      try {
        const prompt = ids.slice(0, 48);
        const mine = await fusedGreedy(ours, set.dims, prompt, 32);
        const reference = [(await theirs.prefill(prompt, false)).nextId];
        while (reference.length < 32) reference.push((await theirs.step(reference.at(-1)!, false)).nextId);
        expect(mine).toEqual(reference);
      } finally {
        await ours.release();
        await theirs.close();
      }
    }, 120_000);
  });
});
