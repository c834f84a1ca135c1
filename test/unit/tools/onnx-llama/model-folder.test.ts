import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { makeLlamaConfig } from '../../../../tools/onnx-llama/config';
import {
  convertSafetensors,
  RANDOM_PRESETS,
  writeRandomModel,
} from '../../../../tools/onnx-llama/model-jobs';
import { writeSafetensors } from '../../../../tools/onnx-llama/safetensors';
import { countParameters } from '../../../../tools/onnx-llama/weights';
import { emptyPast, kvLayoutOf, runStep } from '../../../../tools/onnx-llama/ort-runner';
import { writeByteLevelTokenizer } from './byte-level-tokenizer';
import { maxAbsDiff, openSession, tinyConfig, tinyWeights, TINY_SHAPE } from './tiny-model';

async function lastLogits(
  session: ort.InferenceSession,
  config: ReturnType<typeof tinyConfig>,
): Promise<Float32Array> {
  const ids = [3, 1, 4, 1, 5];
  const step = await runStep(session, {
    inputIds: [ids],
    attentionMask: [ids.map(() => 1)],
    positionIds: [ids.map((_, i) => i)],
    past: emptyPast(kvLayoutOf(config), 1),
  });
  return step.logits.slice(-config.vocab_size);
}

describe('model folder', () => {
  const scratchDir = mkdtempSync(join(tmpdir(), 'onnx-llama-folder-'));
  const tokenizerDir = join(scratchDir, 'tokenizer');
  writeByteLevelTokenizer(tokenizerDir);
  afterAll(() => rmSync(scratchDir, { recursive: true, force: true }));

  it('writes config, generation config, onnx/model.onnx and the tokenizer files; special ids come from the tokenizer', async () => {
    const outDir = join(scratchDir, 'random');
    const result = writeRandomModel({
      shape: TINY_SHAPE,
      seed: 5,
      outDir,
      weightDtype: 'float16',
      form: 'naive',
      tokenizerFrom: tokenizerDir,
    });
    expect(result.files.map((f) => f.path)).toEqual([
      'config.json',
      'generation_config.json',
      'onnx/model.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    const config = JSON.parse(readFileSync(join(outDir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      vocab_size: 300,
      bos_token_id: 256,
      eos_token_id: 256,
      torch_dtype: 'float16',
    });
    expect(JSON.parse(readFileSync(join(outDir, 'generation_config.json'), 'utf8'))).toEqual({
      bos_token_id: 256,
      eos_token_id: 256,
      pad_token_id: null,
    });
    const session = await ort.InferenceSession.create(readFileSync(join(outDir, 'onnx', 'model.onnx')));
    expect((await lastLogits(session, config)).every(Number.isFinite)).toBe(true);
    await session.release();
  });

  it('refuses a tokenizer with more ids than the model vocab', () => {
    const shape = { ...TINY_SHAPE, vocabSize: 200 };
    expect(() =>
      writeRandomModel({
        shape,
        seed: 1,
        outDir: join(scratchDir, 'small'),
        weightDtype: 'float32',
        form: 'naive',
        tokenizerFrom: tokenizerDir,
      }),
    ).toThrow(/257 ids, more than config.vocab_size 200/);
  });

  it('converts a safetensors file with bare PyTorch names into a model with the same logits as the in-memory build', async () => {
    const config = tinyConfig({ isTiedEmbedding: false });
    const weights = tinyWeights(config);
    const bare = new Map([...weights].map(([name, tensor]) => [name.replace(/^model\./, ''), tensor]));
    writeSafetensors(join(scratchDir, 'model.safetensors'), bare);
    writeFileSync(join(scratchDir, 'config.json'), JSON.stringify(config));
    const outDir = join(scratchDir, 'converted');
    const result = convertSafetensors({
      weightsPath: join(scratchDir, 'model.safetensors'),
      configPath: join(scratchDir, 'config.json'),
      outDir,
      weightDtype: 'float32',
      form: 'naive',
    });
    expect(result.numParameters).toBe([...weights.values()].reduce((sum, t) => sum + t.data.length, 0));
    const converted = await ort.InferenceSession.create(readFileSync(join(outDir, 'onnx', 'model.onnx')));
    const direct = await openSession(config, weights);
    expect(maxAbsDiff(await lastLogits(converted, config), await lastLogits(direct, config))).toBe(0);
    await Promise.all([converted.release(), direct.release()]);
  });

  it('runs from the command line: random --preset tiny writes a folder and reports parameters', () => {
    const outDir = join(scratchDir, 'cli');
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'tools/onnx-llama/cli.ts', 'random', '--preset', 'tiny', '--out', outDir],
      { encoding: 'utf8' },
    );
    expect(existsSync(join(outDir, 'onnx', 'model.onnx'))).toBe(true);
    const numParameters = countParameters(makeLlamaConfig(RANDOM_PRESETS.tiny!));
    expect(output).toContain(`wrote ${outDir}`);
    expect(output).toContain(`${(numParameters / 1e6).toFixed(2)}M parameters`);
  });
});
