import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { makeLlamaConfig, TINY_SHAPE } from '../../../../tools/onnx-llama/config';
import { writeRandomModel } from '../../../../tools/onnx-llama/model-jobs';
import { randomLlamaWeights } from '../../../../tools/onnx-llama/random-weights';
import { readOnnxLlamaWeights } from '../../../../tools/onnx-llama/read-weights';
import { writeLayoutModel } from '../../../../tools/onnx-llama/layouts';
import { greedyDecode, kvLayoutOf } from '../../../../tools/onnx-llama/ort-runner';
import { quantizeModelFolder, QUANTIZE_DEFAULTS } from '../../../../tools/onnx-llama/quantize/quantize-model';
import { samplePrompt } from './tiny-model';

describe('the model tool’s fused form', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'onnx-llama-fused-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const shape = { ...TINY_SHAPE, vocabSize: 300 };
  const config = makeLlamaConfig(shape);

  it('writes a fused float32 model whose weights read back exactly', () => {
    const outDir = join(scratch, 'fused');
    writeRandomModel({ shape, seed: 4, outDir, weightDtype: 'float32', form: 'fused' });
    const read = readOnnxLlamaWeights(join(outDir, 'onnx', 'model.onnx'), config);
    const written = randomLlamaWeights(config, { seed: 4 });
    expect([...read.keys()].sort()).toEqual([...written.keys()].sort());
    for (const [name, tensor] of written) {
      expect(read.get(name)!.shape).toEqual(tensor.shape);
      expect(Buffer.from(read.get(name)!.data.buffer).equals(Buffer.from(tensor.data.buffer))).toBe(true);
    }
  });

  it('quantizes a naive source and its fused twin into the same fused bytes', () => {
    const naiveDir = join(scratch, 'naive-q');
    const fusedDir = join(scratch, 'fused-q');
    writeRandomModel({ shape, seed: 6, outDir: naiveDir, weightDtype: 'float16', form: 'naive' });
    writeRandomModel({ shape, seed: 6, outDir: fusedDir, weightDtype: 'float16', form: 'fused' });
    for (const modelDir of [naiveDir, fusedDir])
      quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir, bits: 4, form: 'fused' });
    const q4 = (dir: string) => readFileSync(join(dir, 'onnx', 'model_q4.onnx'));
    expect(q4(naiveDir).equals(q4(fusedDir))).toBe(true);
    expect(() =>
      quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir: fusedDir, bits: 8, form: 'naive' }),
    ).toThrow(/fused graph: it quantizes to the fused form only/);
  });

  it('writes a layout’s weights fused, with the greedy tokens of its plain twin', async () => {
    writeLayoutModel({ layout: 'mha', outDir: join(scratch, 'mha-fused'), seed: 2, form: 'fused' });
    writeLayoutModel({ layout: 'mha', outDir: join(scratch, 'mha-twin'), seed: 2, isTwin: true });
    const mhaConfig = makeLlamaConfig({ ...TINY_SHAPE, numKvHeads: 4 });
    const open = (dir: string) => ort.InferenceSession.create(join(scratch, dir, 'onnx', 'model.onnx'));
    const [fused, twin] = await Promise.all([open('mha-fused'), open('mha-twin')]);
    const prompt = samplePrompt(9, mhaConfig.vocab_size);
    const layout = kvLayoutOf(mhaConfig);
    const expected = await greedyDecode(twin, layout, prompt, 8);
    expect((await greedyDecode(fused, layout, prompt, 8)).tokens).toEqual(expected.tokens);
    await Promise.all([fused.release(), twin.release()]);
  });
});
